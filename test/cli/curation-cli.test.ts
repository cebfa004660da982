import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";
import { cliDatabase } from "../helpers/cli-database.ts";

/**
 * Seed 000: a tool the API curates out is still one that "tai tools run … dispatches exactly
 * as with any other tool"; tiers still decide who may run it. Curated here two ways: by
 * `apiTool: false` (test/fixtures/curated-tools.ts) and by the active manifest's exclude.
 */
const SLOW = 120_000;
let env: Record<string, string>;
let bodyLog: string;
const bodies = () => (existsSync(bodyLog) ? readFileSync(bodyLog, "utf8").trim().split("\n").filter(Boolean) : []);
const tai = (args: string[]) => runCli(args, env);

beforeAll(async () => {
  const { url, admin, user } = await cliDatabase();
  bodyLog = resolve(".tmp", `curation-${randomUUID()}.log`);
  (await import("node:fs")).mkdirSync(resolve(".tmp"), { recursive: true });
  env = {
    DATABASE_URL: url,
    TAI_KEY: user,
    ADMIN_KEY: admin,
    TAI_MODULES: "test/fixtures/curated-tools.ts",
    TAI_TEST_BODY_LOG: bodyLog,
  };
}, SLOW);
afterAll(() => rmSync(bodyLog, { force: true }));

describe("tai tools run: a tool kept off the API is one tai tools run dispatches exactly as with any other tool", () => {
  it(
    "should run a tool curated off the API (apiTool: false), which tools list leaves out unless --all",
    async () => {
      const run = await tai(["tools", "run", "curated_lookup", "--input", '{"q":"abc"}']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        tool: "curated_lookup",
        status: "SUCCEEDED",
        door: "cli",
        data: { found: "ABC" },
      });
      expect(bodies()).toEqual(["curated_lookup"]);

      const listed = await tai(["tools", "list", "--json"]);
      expect((JSON.parse(listed.stdout) as { name: string }[]).map((t) => t.name)).not.toContain("curated_lookup");
      const all = await tai(["tools", "list", "--all", "--json"]);
      const entries = JSON.parse(all.stdout) as { name: string; curated?: boolean }[];
      expect(entries.find((t) => t.name === "curated_lookup")).toMatchObject({ curated: true });
      expect(entries.find((t) => t.name === "echo")).not.toHaveProperty("curated");
    },
    SLOW,
  );

  it(
    "should still refuse a USER a fenced curated tool (PERMISSION_DENIED, exit 1) without running its body, and run it for an ADMIN",
    async () => {
      const before = bodies().length;
      const denied = await tai(["tools", "run", "curated_fenced", "--input", "{}"]);
      expect(denied.code).toBe(1);
      expect(JSON.parse(denied.stdout)).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
      expect(bodies().length).toBe(before);
      const ran = await tai(["tools", "run", "curated_fenced", "--input", "{}", "--key", env.ADMIN_KEY]);
      expect(ran.code, ran.stderr).toBe(0);
      expect(bodies().at(-1)).toBe("curated_fenced");
    },
    SLOW,
  );

  it(
    "should run a tool the active manifest excludes from the API",
    async () => {
      const file = resolve(".tmp", `curation-${randomUUID()}.json`);
      writeFileSync(
        file,
        JSON.stringify({ name: "no-echo", description: "Everything but echo.", tools: { exclude: ["echo"] } }),
      );
      for (const args of [
        ["manifests", "import", file],
        ["manifests", "activate", "no-echo"],
      ]) {
        const r = await runCli([...args, "--key", env.ADMIN_KEY], env);
        expect(r.code, r.stderr).toBe(0);
      }
      const listed = await tai(["tools", "list", "--json"]);
      expect((JSON.parse(listed.stdout) as { name: string }[]).map((t) => t.name)).not.toContain("echo");
      const run = await tai(["tools", "run", "echo", "--input", '{"text":"still here"}']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        status: "SUCCEEDED",
        content: [{ type: "text", text: "still here" }],
      });
    },
    SLOW,
  );
});
