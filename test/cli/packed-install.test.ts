import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROKEN_TOOL } from "../fixtures/user-tools.ts";
import { freePort } from "../helpers/cli.ts";
import { readmeBlock } from "../helpers/readme.ts";
import { runUser, spawnUser, type Ran } from "../helpers/npm.ts";

// The path of a user who packs tai42 and installs the tarball into a project of their own,
// run once for the whole suite: `npm run pack`, then `npm i ./tai42-x.y.z.tgz` into an empty
// folder with no checkout above it. Dependencies come from the npm registry, through the
// npm cache when it has them (--prefer-offline), and their install scripts run
// (better-sqlite3 compiles), as they do for the user. The pack runs no `prepare`: the
// suite's global setup has just built dist/ (scripts/pack.mjs rebuilds only a stale one).
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const INSTALL_TIMEOUT = 15 * 60_000;
const SLOW = 120_000;

/** The user's tool, importing the package by its name; it says where `tai42` resolved. */
const TOOL = `import { app, z } from "tai42";

app.tool(
  { name: "add", description: "Add two numbers.", input: z.object({ a: z.number(), b: z.number() }) },
  async ({ a, b }) => ({ sum: a + b, tai42: import.meta.resolve("tai42") }),
);
`;

let work: string;
let project: string;
let install: Ran;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "tai42-packed-"));
  project = join(work, "my-tools");
  mkdirSync(join(project, "tools"), { recursive: true });
  const pack = await runUser(process.execPath, ["scripts/pack.mjs", "--json", "--pack-destination", work], ROOT);
  if (pack.code !== 0) throw new Error(`npm run pack failed: ${pack.stderr}`);
  const tarball = (JSON.parse(pack.stdout) as { tarball: string }[])[0].tarball;
  // The README's package.json for a project of one's own, as it stands: the tarball has no lifecycle script
  // left to review (scripts/pack.mjs).
  writeFileSync(join(project, "package.json"), readmeBlock('{\n  "name": "my-tools"'));
  writeFileSync(join(project, "tools", "add.ts"), TOOL);
  writeFileSync(join(project, "tools", "broken.ts"), BROKEN_TOOL);
  install = await runUser("npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund"], project);
  process.stderr.write(
    `packed-install: npm pack ${pack.seconds.toFixed(1)} s, npm install ${install.seconds.toFixed(1)} s\n`,
  );
  if (install.code !== 0)
    throw new Error(`npm install of the tarball failed (exit ${install.code}):\n${install.stdout}\n${install.stderr}`);
}, INSTALL_TIMEOUT);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const tai = (args: string[], env: Record<string, string> = {}) =>
  runUser("npx", ["tai", ...args], project, { TAI_LOG: "silent", TAI_MODULES: "tools/add.ts", TAI_DEMO: "0", ...env });

describe("tai42 installed from its packed tarball into a project of one's own", () => {
  it("should install with every needed install script approved, none unreviewed, and no engine warning", () => {
    const said = install.stdout + install.stderr;
    expect(said).not.toContain("EBADENGINE");
    expect(said).not.toContain("install-scripts");
    const installed = join(project, "node_modules", "tai42");
    expect(existsSync(join(installed, "dist", "index.js"))).toBe(true);
    expect(existsSync(join(installed, "src"))).toBe(false);
    // better-sqlite3 compiled for the running Node: its install script ran.
    expect(existsSync(join(project, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node"))).toBe(
      true,
    );
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).dependencies.tai42).toMatch(
      /^file:.*tai42-\d+\.\d+\.\d+\.tgz$/,
    );
  });

  it(
    "npx tai tools run should run the project's tool, importing the installed dist/, on a SQLite database migrated under the project's ./data",
    async () => {
      const r = await tai(["tools", "run", "add", "--input", '{"a":2,"b":40}']);
      expect(r.code, r.stderr).toBe(0);
      const run = JSON.parse(r.stdout) as { status: string; door: string; data: { sum: number; tai42: string } };
      expect(run).toMatchObject({ status: "SUCCEEDED", door: "cli", data: { sum: 42 } });
      expect(fileURLToPath(run.data.tai42)).toBe(join(project, "node_modules", "tai42", "dist", "index.js"));
      expect(existsSync(join(project, "data", "tai42.db"))).toBe(true);
    },
    SLOW,
  );

  it(
    "npx tai serve should serve the project's tool over GraphQL",
    async () => {
      const port = await freePort();
      // Its own process group: npx runs tai as a child, and both are stopped together.
      const server = spawnUser(
        "npx",
        ["tai", "serve"],
        project,
        { TAI_LOG: "silent", TAI_MODULES: "tools/add.ts", TAI_DEMO: "0", PORT: String(port) },
        { detached: true },
      );
      const exited = new Promise<number | null>((r) => server.once("exit", (code) => r(code)));
      try {
        await new Promise<void>((resolve, reject) => {
          const check = () => server.output().stdout.includes("tai42 listening on") && resolve();
          server.stdout!.on("data", check);
          void exited.then((code) => reject(new Error(`tai serve exited (${code}): ${server.output().stderr}`)));
        });
        const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            query: 'mutation { dispatch(input: { tool: "add", input: { a: 20, b: 22 } }) { status data } }',
          }),
        });
        const body = (await res.json()) as {
          data?: { dispatch: { status: string; data: { sum: number } } };
          errors?: unknown;
        };
        expect(body.errors).toBeUndefined();
        expect(body.data?.dispatch).toMatchObject({ status: "SUCCEEDED", data: { sum: 42 } });
      } finally {
        if (server.exitCode === null) process.kill(-server.pid!, "SIGTERM");
        await exited;
      }
    },
    SLOW,
  );

  it(
    "npx tai check should type-check the project's modules against the installed declarations",
    async () => {
      const clean = await tai(["check", "tools/add.ts"]);
      expect(clean.code, clean.stdout + clean.stderr).toBe(0);
      const broken = await tai(["check", "tools/add.ts", "tools/broken.ts"]);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(
        /^tools\/broken\.ts:3:\d+ - error TS2339: Property 'toUpperCase' does not exist on type 'number'\.$/m,
      );
    },
    SLOW,
  );
});
