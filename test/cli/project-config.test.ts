import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { isDefinitionError } from "../../src/definition-error.ts";
import { applyProjectConfig, findProjectConfig, readProjectConfig } from "../../src/cli/project-file.ts";
import { runCli } from "../helpers/cli.ts";

// The project config file (README "The project config file"): found from the working directory upwards, mapped onto
// the environment variables it stands for, the environment winning; every command reads it.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let work: string;
const TOOL = `import { app, z } from "tai42";
app.tool({ name: "shout", description: "Upper-case a text.", input: z.object({ text: z.string() }) },
  async ({ text }) => ({ text: text.toUpperCase() }));
`;

beforeAll(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "tai42-config-")));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("the project config file", () => {
  it("should be found in the working directory's folders upwards, the nearest winning", () => {
    const dir = project("upwards", {
      "tai42.config.json": "{}",
      "inner/tai42.config.yaml": "demo: true\n",
      "inner/deep/er/.keep": "",
    });
    expect(findProjectConfig(join(dir, "inner", "deep", "er"))).toBe(join(dir, "inner", "tai42.config.yaml"));
    expect(findProjectConfig(join(dir))).toBe(join(dir, "tai42.config.json"));
    expect(findProjectConfig(tmpdir())).toBeUndefined();
  });

  it("should resolve module, extension and SQLite paths against its own folder, not the working directory", async () => {
    const dir = project("paths", {
      "tai42.config.yaml":
        "modules: [tools/a.ts, tai42/contrib]\nextensionsDir: ext\ndatabase: { url: 'file:./db/x.db' }\n",
    });
    mkdirSync(join(dir, "sub"));
    const env: NodeJS.ProcessEnv = {};
    expect(await applyProjectConfig(env, join(dir, "sub"))).toBe(join(dir, "tai42.config.yaml"));
    const config = loadConfig(env);
    expect(config.modules).toEqual([join(dir, "tools", "a.ts"), "tai42/contrib"]);
    expect(config.extensionsDir).toBe(join(dir, "ext"));
    expect(config.databaseUrl).toBe(`file:${join(dir, "db", "x.db")}`);
  });

  it("should be overridden by the environment, key by key, and turn the demo tools off unless it turns them on", async () => {
    const dir = project("override", {
      "tai42.config.ts": `export default { server: { port: 4100, host: "0.0.0.0" }, limits: { maxInFlight: 7 } };\n`,
    });
    const env: NodeJS.ProcessEnv = { PORT: "5100" };
    await applyProjectConfig(env, dir);
    expect(loadConfig(env)).toMatchObject({ port: 5100, host: "0.0.0.0", maxInFlight: 7, demo: false });
    expect(loadConfig({ ...env, TAI_DEMO: "1" }).demo).toBe(true);
    // No file (the tai42 checkout): the demo tools stay on.
    expect(loadConfig({}).demo).toBe(true);
  });

  it("should take an API key only as an !ENV reference, read from the environment", async () => {
    const dir = project("keys", {
      "tai42.config.json": JSON.stringify({
        providers: { default: "anthropic", anthropic: { model: "claude-x", apiKey: "!ENV MY_ANTHROPIC" } },
      }),
    });
    const env: NodeJS.ProcessEnv = { MY_ANTHROPIC: "sk-from-env" };
    await applyProjectConfig(env, dir);
    expect(env).toMatchObject({
      TAI_LLM_PROVIDER: "anthropic",
      TAI_ANTHROPIC_MODEL: "claude-x",
      ANTHROPIC_API_KEY: "sk-from-env",
    });
    const literal = project("literal-key", {
      "tai42.config.json": JSON.stringify({ providers: { anthropic: { apiKey: "sk-literal-secret" } } }),
    });
    const refused = await readProjectConfig(join(literal, "tai42.config.json")).catch((e: unknown) => e);
    expect(isDefinitionError(refused, "config.file")).toBe(true);
    expect((refused as Error).message).toContain("/providers/anthropic/apiKey");
    expect((refused as Error).message).not.toContain("sk-literal-secret");
  });

  it("should refuse a bad file with one error naming the file and every bad key", async () => {
    const dir = project("bad", {
      "tai42.config.yml": "server:\n  port: high\nmodulez: [a.ts]\nlimits: { maxInFlight: 0 }\n",
    });
    const file = join(dir, "tai42.config.yml");
    const refused = (await readProjectConfig(file).catch((e: unknown) => e)) as Error & { issues: { path: string }[] };
    expect(isDefinitionError(refused, "config.file")).toBe(true);
    expect(refused.message.startsWith(`${file}: `)).toBe(true);
    expect(refused.issues.map((i) => i.path).sort()).toEqual(["/limits/maxInFlight", "/modulez", "/server/port"]);
  });
});

describe("a malformed project config file", () => {
  it("should be refused naming the file and the position, never quoting its text", async () => {
    const json = project("malformed-json", { "tai42.config.json": '{ "providers": { apiKey: sk-quoted-secret } }' });
    const yaml = project("malformed-yaml", {
      "tai42.config.yaml": "server:\n  port: [4000\napiKey: sk-quoted-secret\n",
    });
    for (const file of [join(json, "tai42.config.json"), join(yaml, "tai42.config.yaml")]) {
      const refused = (await readProjectConfig(file).catch((e: unknown) => e)) as Error;
      expect(isDefinitionError(refused, "config.file")).toBe(true);
      expect(refused.message).toMatch(new RegExp(`^${file}: cannot be read: not valid (JSON|YAML)`));
      expect(refused.message).toMatch(/line \d+ column \d+|position \d+/);
      expect(refused.message).not.toContain("sk-quoted-secret");
    }
  });
});

describe("every command reads the project config file", () => {
  let dir: string;
  beforeAll(() => {
    dir = project("cli", {
      "tai42.config.json": JSON.stringify({ modules: ["tools/shout.ts"], database: { url: "file:./store/tai.db" } }),
      "tools/shout.ts": TOOL,
      "work/.keep": "",
    });
    // tai42 installed in the project, as `npm link tai42` would: the checkout.
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ROOT, join(dir, "node_modules", "tai42"), "dir");
  });

  it("tai tools list and tools run, from a folder below it, should serve its modules on its database, no demo tools", async () => {
    const sub = join(dir, "work");
    const list = await runCli(["tools", "list", "--json"], {}, 60_000, sub);
    expect(list.code, list.stderr).toBe(0);
    const names = (JSON.parse(list.stdout) as { name: string }[]).map((t) => t.name);
    // The project's tool and the built-in agent; none of the demo tools (calculate, …).
    expect(names.sort()).toEqual(["shout", "tools_agent"]);
    const run = await runCli(["tools", "run", "shout", "--input", '{"text":"hi"}'], {}, 60_000, sub);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "SUCCEEDED", data: { text: "HI" } });
    expect(existsSync(join(dir, "store", "tai.db"))).toBe(true);
    expect(existsSync(join(sub, "data"))).toBe(false);
  }, 120_000);

  it("tai keys and tai check should read it too, and the environment should override it", async () => {
    const created = await runCli(["keys", "create", "ci", "--role", "READER"], {}, 60_000, dir);
    expect(created.code, created.stderr).toBe(0);
    const listed = await runCli(["keys", "list"], {}, 60_000, dir);
    expect(listed.stdout).toMatch(/^ci\s+READER/m);
    const elsewhere = await runCli(["keys", "list"], { DATABASE_URL: `file:${join(dir, "other.db")}` }, 60_000, dir);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout).not.toContain("ci ");
    const check = await runCli(["check"], {}, 60_000, dir);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stderr).toContain("checked 1 module");
  }, 120_000);

  it("a bad config file should stop every command with exit 2, naming the file and the key", async () => {
    const bad = project("cli-bad", { "tai42.config.json": JSON.stringify({ server: { port: -1 } }) });
    const commands = [
      ["serve"],
      ["tools", "list"],
      ["tools", "run", "x", "--input", "{}"],
      ["keys", "list"],
      ["presets", "list"],
      ["manifests", "list"],
      ["runs", "wait", "r1"],
      ["schedules", "list"],
      ["check"],
      ["mcp"],
    ];
    for (const args of commands) {
      const r = await runCli(args, {}, 60_000, bad);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(join(bad, "tai42.config.json"));
      expect(r.stderr).toContain("/server/port");
    }
  }, 120_000);
});
