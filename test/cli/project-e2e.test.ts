import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROKEN_TOOL } from "../fixtures/user-tools.ts";
import { freePort, until } from "../helpers/cli.ts";
import { readmeBlock } from "../helpers/readme.ts";
import { runUser, spawnUser, userEnv, type Ran } from "../helpers/npm.ts";

// A project of one's own from nothing, as a new user makes it (README "Using tai42 in your own project"): `npm run
// pack` in the checkout, then in an empty folder with no checkout above it `npx --package=<tarball> tai init`, `npm
// install` (the scaffold's dependency is that tarball), `npm test`, `tai tools run`, `tai check`, `tai dev`, and
// `tai mcp` as a desktop client starts it. Installed once for the suite; dependencies come from the npm registry
// through the npm cache (--prefer-offline), and their install scripts run (better-sqlite3 compiles), as they do for
// the user. The pack runs no `prepare`: the suite's global setup has just built dist/.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const INSTALL_TIMEOUT = 15 * 60_000;
const SLOW = 120_000;

let work: string;
let project: string;
let tarballs: string[];
let init: Ran;
let install: Ran;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "tai42-project-"));
  project = join(work, "my-project");
  mkdirSync(project);
  const pack = await runUser(process.execPath, ["scripts/pack.mjs", "--json", "--pack-destination", work], ROOT);
  if (pack.code !== 0) throw new Error(`npm run pack failed: ${pack.stderr}`);
  tarballs = (JSON.parse(pack.stdout) as { tarball: string }[]).map((p) => p.tarball);
  init = await runUser("npx", ["--yes", `--package=${tarballs[0]}`, "tai", "init"], project);
  if (init.code !== 0) throw new Error(`tai init failed (exit ${init.code}):\n${init.stdout}\n${init.stderr}`);
  // The other tarballs (the workspace packages) beside the one the scaffold depends on.
  install = await runUser(
    "npm",
    ["install", ...tarballs.slice(1), "--prefer-offline", "--no-audit", "--no-fund"],
    project,
  );
  process.stderr.write(
    `project-e2e: npm run pack ${pack.seconds.toFixed(1)} s, npx tai init ${init.seconds.toFixed(1)} s, ` +
      `npm install ${install.seconds.toFixed(1)} s\n`,
  );
  if (install.code !== 0)
    throw new Error(`npm install failed (exit ${install.code}):\n${install.stdout}\n${install.stderr}`);
}, INSTALL_TIMEOUT);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const HELLO = () => join(project, "tools", "hello.ts");

/** The `hello` tool's answer for "Ada" over GraphQL. */
async function greet(port: number): Promise<string | undefined> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      query: 'mutation { dispatch(input: { tool: "hello", input: { name: "Ada" } }) { id status data } }',
    }),
  }).catch(() => undefined);
  if (!res?.ok) return undefined;
  const body = (await res.json()) as { data?: { dispatch: { data: { greeting: string } | null } } };
  return body.data?.dispatch.data?.greeting;
}

describe("a project of one's own from an empty folder: tai init, npm test, tai dev, tai mcp", () => {
  it("tai init should scaffold a project that depends on the tarball and installs with no script left unreviewed", () => {
    expect(init.stdout).toContain("tools/hello.ts");
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as {
      type: string;
      dependencies: Record<string, string>;
    };
    expect(pkg.type).toBe("module");
    expect(pkg.dependencies.tai42).toBe(`file:${tarballs[0]}`);
    for (const f of ["tsconfig.json", "tai42.config.ts", "tools/hello.ts", "test/hello.test.ts"])
      expect(existsSync(join(project, f)), f).toBe(true);
    // The README's package.json: the same install scripts approved and denied.
    const readme = JSON.parse(readmeBlock('{\n  "name": "my-tools"')) as { allowScripts: unknown };
    expect((pkg as unknown as { allowScripts: unknown }).allowScripts).toEqual(readme.allowScripts);
    const said = install.stdout + install.stderr;
    expect(said).not.toContain("install-scripts");
    expect(said).not.toContain("EBADENGINE");
    const installed = join(project, "node_modules", "tai42");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(existsSync(join(installed, "dist", "index.js"))).toBe(true);
    expect(existsSync(join(installed, "src"))).toBe(false);
    // better-sqlite3 compiled for the running Node: its install script ran.
    expect(existsSync(join(project, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node"))).toBe(
      true,
    );
  });

  it(
    "npx tai tools run should run a project tool importing the installed dist/, on the SQLite database the config names",
    async () => {
      writeFileSync(
        join(project, "tools", "where.ts"),
        'import { app, z } from "tai42";\n\napp.tool({ name: "where", description: "Where tai42 resolves.", ' +
          'input: z.object({}) }, async () => ({ tai42: import.meta.resolve("tai42") }));\n',
      );
      // The environment overrides the config file's modules (relative to the working directory).
      const r = await runUser("npx", ["tai", "tools", "run", "where", "--input", "{}"], project, {
        TAI_LOG: "silent",
        TAI_MODULES: "tools/hello.ts,tools/where.ts",
      });
      expect(r.code, r.stderr).toBe(0);
      const run = JSON.parse(r.stdout) as { status: string; door: string; data: { tai42: string } };
      expect(run).toMatchObject({ status: "SUCCEEDED", door: "cli" });
      expect(fileURLToPath(run.data.tai42)).toBe(join(project, "node_modules", "tai42", "dist", "index.js"));
      expect(existsSync(join(project, "data", "tai42.db"))).toBe(true);
    },
    SLOW,
  );

  it(
    "npx tai check should type-check the config's modules against the installed declarations, and name a type error",
    async () => {
      const clean = await runUser("npx", ["tai", "check"], project, { TAI_LOG: "silent" });
      expect(clean.code, clean.stdout + clean.stderr).toBe(0);
      writeFileSync(join(project, "tools", "broken.ts"), BROKEN_TOOL);
      const broken = await runUser("npx", ["tai", "check", "tools/hello.ts", "tools/broken.ts"], project);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(
        /^tools\/broken\.ts:3:\d+ - error TS2339: Property 'toUpperCase' does not exist on type 'number'\.$/m,
      );
    },
    SLOW,
  );

  it(
    "the scaffold's npm test should pass at once",
    async () => {
      const r = await runUser("npm", ["test"], project);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^# pass 2$|^ℹ pass 2$/m);
    },
    SLOW,
  );

  it(
    "tai init should refuse a folder holding the files it would write, exit 2, writing nothing",
    async () => {
      const before = readFileSync(join(project, "package.json"), "utf8");
      const r = await runUser("npx", ["tai", "init"], project);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("already has tsconfig.json, tai42.config.ts, tools/hello.ts");
      expect(readFileSync(join(project, "package.json"), "utf8")).toBe(before);
    },
    SLOW,
  );

  it(
    "tai dev should serve a tool edited on disk changed within 2 s of the write, on the same database",
    async () => {
      const port = await freePort();
      const dev = spawnUser(
        "npx",
        ["tai", "dev"],
        project,
        { PORT: String(port), TAI_LOG: "silent" },
        { detached: true },
      );
      const exited = new Promise<number | null>((r) => dev.once("exit", (code) => r(code)));
      const original = readFileSync(HELLO(), "utf8");
      try {
        expect(await until("the first server", 60_000, () => greet(port))).toBe("Hello, Ada!");
        const first = dev.output().stdout;
        expect(first).toContain("First start: created the admin API key");
        expect(first).toContain(`config: ${join(project, "tai42.config.ts")}`);
        // The next server is loaded ahead; give it the time a person takes to make an edit.
        await until("the standby server", 30_000, async () =>
          dev.output().stdout.includes("ready") ? true : undefined,
        );
        writeFileSync(HELLO(), original.replace("Hello, ", "Bonjour, "));
        const written = performance.now();
        await until("the edited tool served", 10_000, async () =>
          (await greet(port)) === "Bonjour, Ada!" ? true : undefined,
        );
        const seconds = (performance.now() - written) / 1000;
        process.stderr.write(`project-e2e: tai dev served the edited tool ${seconds.toFixed(2)} s after the write\n`);
        expect(seconds).toBeLessThan(2);
        // The same database: the admin key created at the first start is not created again.
        expect(dev.output().stdout.split("First start").length).toBe(2);
      } finally {
        writeFileSync(HELLO(), original);
        if (dev.exitCode === null) process.kill(-dev.pid!, "SIGTERM");
        await exited;
      }
    },
    SLOW,
  );

  it(
    "tai mcp, started as a desktop client's config says (command, args, cwd, no TAI_* variable), should serve the project's tools through the SDK's client",
    async () => {
      const env = userEnv();
      expect(Object.keys(env).filter((k) => /^(TAI_|DATABASE_URL$)/.test(k))).toEqual([]);
      const transport = new StdioClientTransport({
        command: "npx",
        args: ["tai", "mcp"],
        cwd: project,
        env: env as Record<string, string>,
        stderr: "pipe",
      });
      const client = new Client({ name: "desktop-like", version: "1.0.0" });
      await client.connect(transport);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toContain("hello");
        expect(names).not.toContain("calculate");
        const result = (await client.callTool({ name: "hello", arguments: { name: "Ada" } })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual({ greeting: "Hello, Ada!" });
      } finally {
        await client.close();
      }
    },
    SLOW,
  );
});
