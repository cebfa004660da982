import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseExpiry } from "../../src/cli/keys-commands.ts";
import { limiter, runCli } from "../helpers/cli.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const SLOW = 120_000;
const limit = limiter(3);

let databaseUrl: string;
let rt: TestRuntime;
const tai = (args: string[], env: Record<string, string> = {}) =>
  limit(() => runCli(args, { DATABASE_URL: databaseUrl, ...env }));

beforeAll(async () => {
  databaseUrl = (await freshDatabase("sqlite")).url;
  rt = await testRuntime({ databaseUrl });
});
afterAll(() => rt?.dispose());

describe("tai keys create --expires, --tools and --manifest", () => {
  it(
    "should create a scoped key with an expiry, list them, and hold tools run --key to its scope",
    async () => {
      const created = await tai([
        "keys",
        "create",
        "cli-scoped",
        "--role",
        "USER",
        "--expires",
        "30d",
        "--tools",
        "echo,clock",
      ]);
      expect(created.code, created.stderr).toBe(0);
      const key = created.stdout.trim();
      const [row] = (await rt.keys.list()).filter((k) => k.name === "cli-scoped");
      expect(row.scope).toEqual({ tools: ["echo", "clock"] });
      const days = (Date.parse(row.expiresAt!) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(29.9);
      expect(days).toBeLessThanOrEqual(30);

      const listed = await tai(["keys", "list"]);
      expect(listed.stdout).toMatch(
        new RegExp(
          `^cli-scoped\\s+USER\\s+tai_\\S+…\\s+active, expires ${row.expiresAt}; never used; scope: tools echo,clock$`,
          "m",
        ),
      );

      const ran = await tai(["tools", "run", "echo", "--input", '{"text":"hi"}', "--key", key]);
      expect(ran.code, ran.stderr).toBe(0);
      const refused = await tai(["tools", "run", "calculate", "--input", '{"op":"add","a":1,"b":2}', "--key", key]);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stdout)).toMatchObject({
        status: "FAILED",
        errorKind: "PERMISSION_DENIED",
        errorMessage: 'the scope of API key "cli-scoped" (its tool list) excludes tool "calculate"',
      });
      const used = await tai(["keys", "list"]);
      expect(used.stdout).toMatch(/^cli-scoped .* last used \d{4}-/m);
    },
    SLOW,
  );

  it.concurrent(
    "should refuse an unknown manifest, both scopes at once and a bad expiry with exit 2, storing nothing",
    async ({ expect }) => {
      const unknown = await tai(["keys", "create", "cli-bad", "--role", "USER", "--manifest", "nowhere"]);
      expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('no manifest named "nowhere"')]);
      const both = await tai(["keys", "create", "cli-bad", "--role", "USER", "--manifest", "m", "--tools", "echo"]);
      expect([both.code, both.stderr]).toEqual([2, expect.stringContaining("at most one of --tools and --manifest")]);
      const expiry = await tai(["keys", "create", "cli-bad", "--role", "USER", "--expires", "yesterday"]);
      expect([expiry.code, expiry.stderr]).toEqual([2, expect.stringContaining("must be a duration")]);
      expect((await rt.keys.list()).some((k) => k.name === "cli-bad")).toBe(false);
    },
    SLOW,
  );
});

describe("parseExpiry", () => {
  it("should read durations from now and ISO date-times, and refuse anything else", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(parseExpiry("90s", now).toISOString()).toBe("2030-01-01T00:01:30.000Z");
    expect(parseExpiry("12h", now).toISOString()).toBe("2030-01-01T12:00:00.000Z");
    expect(parseExpiry("2w", now).toISOString()).toBe("2030-01-15T00:00:00.000Z");
    expect(parseExpiry("2031-06-01T10:00:00Z", now).toISOString()).toBe("2031-06-01T10:00:00.000Z");
    for (const bad of ["0d", "30", "d", "tomorrow", "2031-06-01"]) expect(() => parseExpiry(bad, now)).toThrow();
  });
});
