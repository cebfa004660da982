import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, runCli, until } from "../helpers/cli.ts";

// `tai init` and `tai dev` on the compiled CLI, in a folder outside the checkout whose tai42 is the checkout (as
// `npm link tai42` makes it). test/cli/project-e2e.test.ts runs both from the packed tarball.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "tai.mjs");
let work: string;

beforeAll(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "tai42-init-")));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("tai init", () => {
  it("should scaffold a new folder with the project's files, depending on tai42", async () => {
    const r = await runCli(["init", "fresh", "--tai42", "file:/somewhere/tai42-0.1.0.tgz"], {}, 30_000, work);
    expect(r.code, r.stderr).toBe(0);
    const dir = join(work, "fresh");
    for (const f of ["package.json", "tsconfig.json", "tai42.config.ts", "tools/hello.ts", "test/hello.test.ts"])
      expect(existsSync(join(dir, f)), f).toBe(true);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg).toMatchObject({
      name: "fresh",
      type: "module",
      dependencies: { tai42: "file:/somewhere/tai42-0.1.0.tgz" },
      scripts: { test: "node --import tsx --test test/*.test.ts" },
      allowScripts: { "better-sqlite3": true, "@prisma/engines": false },
    });
  });

  it("should refuse a folder holding a file it would write, exit 2, writing nothing", async () => {
    const dir = join(work, "taken");
    mkdirSync(join(dir, "tools"), { recursive: true });
    writeFileSync(join(dir, "tools", "hello.ts"), "// mine\n");
    const r = await runCli(["init"], {}, 30_000, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("already has tools/hello.ts");
    expect(readFileSync(join(dir, "tools", "hello.ts"), "utf8")).toBe("// mine\n");
    expect(existsSync(join(dir, "tai42.config.ts"))).toBe(false);
  });

  it("should merge into the package.json `npm i tai42.tgz` wrote, keeping its tai42 spec", async () => {
    const dir = join(work, "installed");
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ dependencies: { tai42: "file:../tai42-0.1.0.tgz" } }));
    const r = await runCli(["init"], {}, 30_000, dir);
    expect(r.code, r.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg).toMatchObject({ type: "module", dependencies: { tai42: "file:../tai42-0.1.0.tgz" } });
    expect(pkg.scripts.test).toContain("--test");
  });
});

async function greet(port: number): Promise<string | undefined> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: 'mutation { dispatch(input: { tool: "hello", input: { name: "Ada" } }) { data } }' }),
  }).catch(() => undefined);
  if (!res?.ok) return undefined;
  return ((await res.json()) as { data?: { dispatch: { data: { greeting: string } | null } } }).data?.dispatch.data
    ?.greeting;
}

/** Whether the demo tool `calculate` is served (the config file's `demo`). */
async function calculates(port: number): Promise<boolean | undefined> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      query: 'mutation { dispatch(input: { tool: "calculate", input: { op: "add", a: 1, b: 2 } }) { status } }',
    }),
  }).catch(() => undefined);
  if (!res?.ok) return undefined;
  return ((await res.json()) as { data?: { dispatch: { status: string } } }).data?.dispatch.status === "SUCCEEDED";
}

describe("tai dev", () => {
  it("should survive a module with a syntax error, print the error, serve the module again once fixed, and reread a changed config file", async () => {
    const r = await runCli(["init", "dev", "--tai42", "file:/x.tgz"], {}, 30_000, work);
    expect(r.code, r.stderr).toBe(0);
    const dir = join(work, "dev");
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ROOT, join(dir, "node_modules", "tai42"), "dir");
    const port = await freePort();
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TAI_|DATABASE_URL|PORT)/.test(k)));
    const dev = spawn(process.execPath, [BIN, "dev"], {
      cwd: dir,
      env: { ...base, TAI_LOG: "silent", PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    dev.stdout.on("data", (d) => (out += d));
    dev.stderr.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((res) => dev.once("exit", (code) => res(code)));
    const hello = join(dir, "tools", "hello.ts");
    const good = readFileSync(hello, "utf8");
    try {
      expect(await until("the first server", 60_000, () => greet(port))).toBe("Hello, Ada!");
      await until("the standby", 30_000, () => (out.includes("ready for the next change") ? true : undefined));
      writeFileSync(hello, `${good}\nexport const broken = ;\n`);
      await until("the error reported", 30_000, () => (out.includes("the server stopped") ? true : undefined));
      expect(out).toContain("failed to load module");
      expect(out).toMatch(/hello\.ts:\d+:\d+: ERROR/);
      expect(dev.exitCode).toBeNull();
      writeFileSync(hello, good.replace("Hello, ", "Hi, "));
      expect(
        await until("the fixed module served", 30_000, async () =>
          (await greet(port)) === "Hi, Ada!" ? true : undefined,
        ),
      ).toBe(true);
      // The config file changed: the next server reads it (the demo tools on).
      expect(await calculates(port)).toBe(false);
      const config = join(dir, "tai42.config.ts");
      writeFileSync(config, readFileSync(config, "utf8").replace("server:", "demo: true,\n  server:"));
      expect(await until("the demo tools", 30_000, async () => ((await calculates(port)) ? true : undefined))).toBe(
        true,
      );
    } finally {
      dev.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  }, 150_000);
});
