import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { cliDatabase } from "../helpers/cli-database.ts";
import { runCli } from "../helpers/cli.ts";
import { parseManifest, serializeManifest } from "../../src/cli/manifest-file.ts";

describe("tai presets and tai manifests", () => {
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    const db = await cliDatabase();
    env = { DATABASE_URL: db.url, TAI_KEY: db.admin, USER_KEY: db.user };
    dir = resolve(".tmp", randomUUID());
    (await import("node:fs")).mkdirSync(dir, { recursive: true });
  });

  it("should create a preset with an ADMIN's limits, refusing them from a USER and bad ones at their path", async () => {
    const limits = '{"rate":{"tokens":1,"intervalSeconds":60}}';
    const user = ["presets", "create", "echo_once", "--base", "echo", "--limits", limits, "--key", env.USER_KEY];
    const refused = await runCli(user, env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("FORBIDDEN");
    const created = await runCli(["presets", "create", "echo_once", "--base", "echo", "--limits", limits], env);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ limits: { rate: { tokens: 1, intervalSeconds: 60 } } });
    // Counted per process on SQLite (docs/flow-control.md §4): each `tai tools run` is a process of its own.
    const first = await runCli(["tools", "run", "echo_once", "--input", '{"text":"a"}'], env);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: "SUCCEEDED" });
    const bad = await runCli(
      ["presets", "create", "echo_bad", "--base", "echo", "--limits", '{"rate":{"tokens":0}}'],
      env,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("/limits/rate/tokens");
  });

  it("should take --key on every listing command, answering a valid key and refusing an unknown one as UNAUTHENTICATED", async () => {
    for (const args of [
      ["presets", "list"],
      ["manifests", "list"],
      ["tools", "list"],
      ["manifests", "export", "none"],
    ]) {
      const refused = await runCli([...args, "--key", "tai_not-a-key"], env);
      expect([args.join(" "), refused.code, refused.stderr]).toEqual([
        args.join(" "),
        2,
        "error (UNAUTHENTICATED): the API key is unknown or revoked\n",
      ]);
    }
    expect((await runCli(["presets", "list", "--key", env.USER_KEY], env)).code).toBe(0);
    expect((await runCli(["manifests", "list", "--key", env.USER_KEY], env)).code).toBe(0);
    expect((await runCli(["tools", "list", "--key", env.USER_KEY], env)).stdout).toContain("echo");
  });

  it("should create, list and delete a preset through the same rules as every door", async () => {
    const created = await runCli(["presets", "create", "echo_hi", "--base", "echo", "--kwargs", '{"text":"hi"}'], env);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      name: "echo_hi",
      baseTool: "echo",
      fixedKwargs: { text: "hi" },
      version: 1,
    });
    const run = await runCli(["tools", "run", "echo_hi", "--input", "{}"], env);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "SUCCEEDED", content: [{ text: "hi" }] });
    const bad = await runCli(["presets", "create", "broken", "--base", "echo", "--kwargs", '{"nope":1}'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("/fixedKwargs/nope");
    const fenced = await runCli(["presets", "create", "stats", "--base", "admin_stats", "--key", env.USER_KEY], env);
    expect(fenced.code).toBe(2);
    expect(fenced.stderr).toContain("FORBIDDEN");
    expect((await runCli(["presets", "list"], env)).stdout).toContain("echo_hi");
    expect((await runCli(["presets", "delete", "echo_hi"], env)).code).toBe(0);
    expect((await runCli(["presets", "list"], env)).stdout).not.toContain("echo_hi");
  }, 120_000);

  it("should import a YAML manifest, export it as YAML and JSON byte-identically, and activate it", async () => {
    const yamlFile = resolve(dir, "prod.yaml");
    writeFileSync(
      yamlFile,
      YAML.stringify({
        name: "prod",
        description: "Production surface",
        tools: { include: ["echo", "calculate", "clock*"] },
        retry: { calculate: { maxAttempts: 2, idempotent: true, retryable: ["UNAVAILABLE"] } },
      }),
    );
    const imported = await runCli(["manifests", "import", yamlFile], env);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain('imported manifest "prod" as v1');

    const exportedYaml = await runCli(["manifests", "export", "prod"], env);
    expect(YAML.parse(exportedYaml.stdout)).toEqual(YAML.parse(readFileSync(yamlFile, "utf8")));
    const again = resolve(dir, "again.yaml");
    writeFileSync(again, exportedYaml.stdout);
    expect((await runCli(["manifests", "import", again], env)).stderr).toContain("unchanged (v1)");
    expect((await runCli(["manifests", "export", "prod"], env)).stdout).toBe(exportedYaml.stdout);

    const jsonFile = resolve(dir, "prod.json");
    expect((await runCli(["manifests", "export", "prod", "--out", jsonFile], env)).code).toBe(0);
    expect(JSON.parse(readFileSync(jsonFile, "utf8"))).toEqual(YAML.parse(exportedYaml.stdout));

    expect((await runCli(["manifests", "activate", "prod", "--key", env.USER_KEY], env)).code).toBe(2);
    expect((await runCli(["manifests", "activate", "prod"], env)).code).toBe(0);
    const list = await runCli(["tools", "list"], env);
    expect(
      list.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(/\s+/)[0])
        .sort(),
    ).toEqual(["calculate", "clock", "echo"]);
    expect((await runCli(["manifests", "list"], env)).stdout).toMatch(/\* prod\s+v1/);
  }, 120_000);

  it("should refuse an invalid manifest file with every issue named and store nothing", async () => {
    const file = resolve(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ name: "bad", tools: { include: ["ghost"] }, extensions: { echo: ["nope"] } }));
    const r = await runCli(["manifests", "import", file], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/document/tools/include/0: unknown tool "ghost"');
    expect(r.stderr).toContain('unknown extension "nope"');
    expect((await runCli(["manifests", "list"], env)).stdout).not.toContain("bad");
  }, 60_000);

  it("should round-trip a manifest file exactly through parse and serialize in both formats", () => {
    const m = {
      name: "m",
      description: "d",
      document: {
        retry: { b: { maxAttempts: 1, idempotent: false } },
        tools: { exclude: ["x*"], include: ["a"] },
        extensions: { a: [["monitor", { name: "label", config: { label: "L" } }]] },
      },
    };
    for (const format of ["json", "yaml"] as const) {
      const text = serializeManifest(m, format);
      const parsed = parseManifest(text, format, `m.${format}`);
      expect(serializeManifest(parsed, format)).toBe(text);
    }
  });
});
