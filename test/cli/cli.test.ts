import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/dispatch/run-record.ts";
import { limiter, runCli, startCli, type CliProcess, type CliResult } from "../helpers/cli.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// Each `tai` spawn costs one to two seconds of CPU; independent ones run a few at a time.
const SLOW = 120_000;
const limit = limiter(3);

let databaseUrl: string;
let rt: TestRuntime;
const tai = (args: string[], env: Record<string, string> = {}) =>
  limit(() => runCli(args, { DATABASE_URL: databaseUrl, ...env }));

beforeAll(async () => {
  databaseUrl = (await freshDatabase("sqlite")).url;
  // Held open for the whole file, as a running server would hold it.
  rt = await testRuntime({ databaseUrl });
});
afterAll(() => rt?.dispose());

const DEMO_TOOLS = ["admin_stats", "calculate", "clock", "echo", "flaky", "kv_get", "kv_put", "sign_message", "sleep"];

describe("tai tools list", () => {
  it.concurrent(
    "should list every demo tool with its origin and tier, one per line",
    async ({ expect }) => {
      const r = await tai(["tools", "list"]);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trim().split("\n");
      expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(expect.arrayContaining(DEMO_TOOLS));
      expect(lines.find((l) => l.startsWith("echo "))).toMatch(/^echo\s+TOOL\s+read\s+Return the given text/);
      expect(lines.find((l) => l.startsWith("kv_put "))).toMatch(/\swrite\s/);
      expect(lines.find((l) => l.startsWith("admin_stats "))).toMatch(/\sfenced\s/);
      expect(lines.find((l) => l.startsWith("sign_message "))).toMatch(/\ssecret\s/);
    },
    SLOW,
  );

  it.concurrent(
    "should print the surface as JSON with --json, input schemas included",
    async ({ expect }) => {
      const r = await tai(["tools", "list", "--json"]);
      expect(r.code, r.stderr).toBe(0);
      const list = JSON.parse(r.stdout) as {
        name: string;
        tier: string;
        origin: string;
        inputSchema: Record<string, unknown>;
      }[];
      expect(list.map((t) => t.name)).toEqual(expect.arrayContaining(DEMO_TOOLS));
      const echo = list.find((t) => t.name === "echo")!;
      expect(echo).toMatchObject({
        tier: "read",
        origin: "TOOL",
        inputSchema: { type: "object", required: ["text"], properties: { text: { type: "string" } } },
      });
    },
    SLOW,
  );
});

describe("tai tools run", () => {
  /**
   * `tai tools run clock …args`, which must exit 2 with nothing on stdout and record no run; resolves with what it
   * printed.
   */
  async function refusedWithoutRun(args: string[]): Promise<CliResult> {
    const clockRuns = () => rt.db.run.count({ where: { door: "cli", tool: "clock" } });
    const before = await clockRuns();
    const r = await tai(["tools", "run", "clock", ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(await clockRuns()).toBe(before);
    return r;
  }

  it.concurrent(
    "should print the SUCCEEDED run as JSON, record it with door cli, and exit 0",
    async ({ expect }) => {
      const r = await tai(["tools", "run", "echo", "--input", '{"text":"hi"}']);
      expect(r.code, r.stderr).toBe(0);
      const run = JSON.parse(r.stdout) as RunRecord;
      expect(run).toMatchObject({
        tool: "echo",
        status: "SUCCEEDED",
        door: "cli",
        content: [{ type: "text", text: "hi" }],
        callerRole: "USER",
      });
      expect(await rt.runs.get(run.id)).toMatchObject({ status: "SUCCEEDED", door: "cli", input: { text: "hi" } });
    },
    SLOW,
  );

  it.concurrent(
    "should exit 2 with a message naming --input when the input is not valid JSON, and record no run",
    async ({ expect }) => {
      const r = await refusedWithoutRun(["--input", "{not json"]);
      expect(r.stderr).toContain("--input");
      expect(r.stderr).toContain("not valid JSON");
    },
    SLOW,
  );

  it.concurrent(
    "should exit 2 when --input is JSON but not an object",
    async ({ expect }) => {
      const r = await tai(["tools", "run", "echo", "--input", '["hi"]']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("must be a JSON object");
    },
    SLOW,
  );

  it.concurrent(
    "should refuse an idempotency key over 200 characters as the chokepoint does, exit 2 naming the option, and record no run",
    async ({ expect }) => {
      const r = await refusedWithoutRun(["--input", "{}", "--idempotency-key", "k".repeat(201)]);
      expect(r.stderr).toContain("error (BAD_USER_INPUT): idempotencyKey must be 1 to 200 characters");
      expect(r.stderr).toContain("/idempotencyKey: must be 1 to 200 characters");
    },
    SLOW,
  );

  it.concurrent(
    "should exit 1 with NOT_FOUND for an unknown tool, and record the rejection",
    async ({ expect }) => {
      const r = await tai(["tools", "run", "no_such_tool", "--input", "{}"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("NOT_FOUND");
      expect(r.stderr).toContain("no_such_tool");
      const run = JSON.parse(r.stdout) as RunRecord;
      expect(run).toMatchObject({ status: "FAILED", errorKind: "NOT_FOUND" });
      expect(await rt.runs.get(run.id)).toMatchObject({ status: "FAILED", errorKind: "NOT_FOUND", door: "cli" });
    },
    SLOW,
  );

  it.concurrent(
    "should exit 1 with INVALID_INPUT when the input breaks the tool's schema",
    async ({ expect }) => {
      const r = await tai(["tools", "run", "echo", "--input", '{"text":5}']);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
    },
    SLOW,
  );
});

describe("tai keys", () => {
  it(
    "should create a key that then works with tools run --key, and revoke it so that it is refused",
    async () => {
      const noAnon = { TAI_ANONYMOUS_ROLE: "NONE" };
      const created = await tai(["keys", "create", "cli-user", "--role", "USER"]);
      expect(created.code, created.stderr).toBe(0);
      const key = created.stdout.trim();
      expect(key).toMatch(/^tai_[A-Za-z0-9_-]{43}$/);
      expect(created.stderr).toContain("shown once");
      expect(await rt.keys.verify(key)).toMatchObject({ role: "USER", keyName: "cli-user" });

      const anonymous = await tai(["tools", "run", "kv_put", "--input", '{"key":"k","value":1}'], noAnon);
      expect(anonymous.code).toBe(2);
      expect(anonymous.stderr).toContain("UNAUTHENTICATED");
      expect(anonymous.stderr).toContain("--key");

      const used = await tai(["tools", "run", "kv_put", "--input", '{"key":"k","value":1}', "--key", key], noAnon);
      expect(used.code, used.stderr).toBe(0);
      expect(JSON.parse(used.stdout)).toMatchObject({ status: "SUCCEEDED", callerRole: "USER", callerKey: "cli-user" });

      const fromEnv = await tai(["tools", "run", "kv_get", "--input", '{"key":"k"}'], { ...noAnon, TAI_KEY: key });
      expect(fromEnv.code, fromEnv.stderr).toBe(0);
      expect(JSON.parse(fromEnv.stdout)).toMatchObject({ status: "SUCCEEDED", callerKey: "cli-user" });

      const revoked = await tai(["keys", "revoke", "cli-user"]);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect((await rt.keys.list()).find((k) => k.name === "cli-user")?.revokedAt).not.toBeNull();

      const refused = await tai(["tools", "run", "kv_get", "--input", '{"key":"k"}', "--key", key]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("UNAUTHENTICATED");
      expect(refused.stdout).toBe("");
    },
    SLOW,
  );

  it.concurrent(
    "should set a key's rate with tai keys rate, remove it with --none, and refuse a bad one naming its path",
    async ({ expect }) => {
      await rt.keys.create("cli-rated", "USER");
      const rateOf = async () => (await rt.keys.list()).find((k) => k.name === "cli-rated")?.rate ?? null;
      const bad = await tai(["keys", "rate", "cli-rated", "--rate", '{"tokens":0}']);
      expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("/rate/tokens")]);
      expect(await rateOf()).toBeNull();
      const set = await tai(["keys", "rate", "cli-rated", "--rate", '{"tokens":5,"intervalSeconds":60}']);
      expect([set.code, set.stderr]).toEqual([0, 'set the rate of key "cli-rated"\n']);
      expect(await rateOf()).toMatchObject({ tokens: 5, intervalSeconds: 60 });
      const removed = await tai(["keys", "rate", "cli-rated", "--none"]);
      expect([removed.code, removed.stderr]).toEqual([0, 'removed the rate of key "cli-rated"\n']);
      expect(await rateOf()).toBeNull();
      expect((await tai(["keys", "rate", "cli-rated"])).stderr).toContain("exactly one of --rate <json> and --none");
    },
    SLOW,
  );

  it.concurrent(
    "should refuse an unknown role with exit 2",
    async ({ expect }) => {
      const r = await tai(["keys", "create", "bad-role", "--role", "ROOT"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("READER, USER or ADMIN");
      expect((await rt.keys.list()).some((k) => k.name === "bad-role")).toBe(false);
    },
    SLOW,
  );

  it.concurrent(
    "should exit 2 with NOT_FOUND when revoking a key that does not exist",
    async ({ expect }) => {
      const r = await tai(["keys", "revoke", "nobody"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("NOT_FOUND");
    },
    SLOW,
  );
});

describe("TAI_MODULES", () => {
  it.concurrent(
    "should fail the command with an error naming a module that throws at load",
    async ({ expect }) => {
      const r = await tai(["tools", "list"], { TAI_MODULES: "test/fixtures/broken-module.ts" });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain('failed to load module "test/fixtures/broken-module.ts"');
      expect(r.stderr).toContain("broken on purpose");
    },
    SLOW,
  );

  it.concurrent(
    "should fail the command with an error naming a module file that does not exist",
    async ({ expect }) => {
      const r = await tai(["tools", "run", "echo", "--input", '{"text":"x"}'], {
        TAI_MODULES: "test/fixtures/missing-module.ts",
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('failed to load module "test/fixtures/missing-module.ts": file not found');
    },
    SLOW,
  );

  it.concurrent(
    "should serve a module's tools to tools list and tools run",
    async ({ expect }) => {
      const env = { TAI_MODULES: "test/fixtures/tier-tools.ts" };
      const list = await tai(["tools", "list", "--json"], env);
      expect(list.code, list.stderr).toBe(0);
      expect((JSON.parse(list.stdout) as { name: string }[]).map((t) => t.name)).toEqual(
        expect.arrayContaining(["tier_read", "tier_write", "tier_fenced", "tier_secret"]),
      );
    },
    SLOW,
  );
});

describe("tai serve", () => {
  let server: CliProcess | undefined;
  afterAll(async () => {
    await server?.stop("SIGKILL");
  });

  it(
    "should print the first admin key once on first start, not on a restart, and stop cleanly on SIGTERM",
    async () => {
      const { url } = await freshDatabase("sqlite");
      const env = { DATABASE_URL: url, PORT: "0", HOST: "127.0.0.1" };
      server = startCli(["serve"], env);
      const out = await server.waitFor("listening on");
      const key = /First start: created the admin API key[^\n]*\n\s*\n\s*(tai_\S+)/.exec(out)?.[1];
      expect(key, out).toMatch(/^tai_[A-Za-z0-9_-]{43}$/);
      const endpoint = /listening on (http:\/\/\S+\/graphql)/.exec(out)![1];
      const res = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: "{ viewer { role keyName } }" }),
      });
      expect(await res.json()).toEqual({ data: { viewer: { role: "ADMIN", keyName: "admin" } } });
      expect(await server.stop()).toBe(0);

      server = startCli(["serve"], env);
      const again = await server.waitFor("listening on");
      expect(again).not.toContain("First start");
      expect(again).not.toContain(key!);
      expect(await server.stop()).toBe(0);
    },
    SLOW,
  );
});
