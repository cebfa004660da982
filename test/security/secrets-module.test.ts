import { describe, expect, it } from "vitest";
import { Secrets } from "../../src/secrets/secrets.ts";
import { configuredCredentials } from "../../src/secrets/credentials.ts";
import { loadConfig } from "../../src/config.ts";

describe("the runtime's secrets module", () => {
  it("should scrub a value as written and JSON-escaped, inside nested data, leaving dates and keys alone", () => {
    const s = new Secrets();
    s.add('pa"ss\\word-42');
    const at = new Date(0);
    expect(s.scrub({ 'pa"ss\\word-42': [`x pa"ss\\word-42 y`], at })).toEqual({
      'pa"ss\\word-42': ["x [redacted] y"],
      at,
    });
    expect(s.scrubText(JSON.stringify({ v: 'pa"ss\\word-42' }))).toBe('{"v":"[redacted]"}');
  });

  it("should not track values shorter than 4 characters", () => {
    const s = new Secrets();
    s.add("abc");
    expect(s.scrubText("abc abcd")).toBe("abc abcd");
  });

  it("should leave server-made ids, instants and digests whole unless a secret is the whole token", () => {
    const s = new Secrets();
    const id = "2b1f2026-9c3e-4b5a-8d7f-0123456789ab";
    s.add("2026");
    s.add("7e3a9c1d-0b2f-4e6a-9d8c-5f4e3d2c1b0a");
    const digest = `sha256:${"2026".repeat(16)}`;
    expect(s.scrub({ id, at: "2026-11-30T20:19:31.123Z", scope: digest })).toEqual({
      id,
      at: "2026-11-30T20:19:31.123Z",
      scope: digest,
    });
    expect(s.scrub({ token: "7e3a9c1d-0b2f-4e6a-9d8c-5f4e3d2c1b0a" })).toEqual({ token: "[redacted]" });
    expect(s.scrubText("the PIN is 2026, not 2025")).toBe("the PIN is [redacted], not 2025");
  });

  it("should still scrub a secret of 8 characters or more out of a string shaped like a server token", () => {
    const s = new Secrets();
    const token = "9f".repeat(32);
    s.add(token);
    s.add("c0ffee00");
    expect(s.scrubText(`sha256:${token}`)).toBe("sha256:[redacted]");
    expect(s.scrubText("c0ffee00-9c3e-4b5a-8d7f-0123456789ab")).toBe("[redacted]-9c3e-4b5a-8d7f-0123456789ab");
  });

  it("should scrub a longer secret whole when a shorter one is inside it", () => {
    const s = new Secrets();
    s.add("token");
    s.add("token-123456");
    expect(s.scrubText("token-123456 and token")).toBe("[redacted] and [redacted]");
  });

  it("should keep what one run learned in its scope, not in the runtime's set", () => {
    const s = new Secrets();
    s.add("runtime-wide-secret");
    const scope = s.scope();
    scope.learn({ result: "only-this-run" });
    expect(scope.scrubText("runtime-wide-secret only-this-run")).toBe("[redacted] [redacted]");
    expect(s.scrubText("only-this-run")).toBe("only-this-run");
  });

  it("should resolve a marker and remember its value, and refuse server configuration naming the variable only", () => {
    const s = new Secrets({
      deny: ["VAULT_*"],
      env: { EXT_OK: "resolved-value", VAULT_TOKEN: "vault-value", TAI_ADMIN_KEY: "admin-value-123" },
    });
    expect(s.resolve({ a: "!ENV EXT_OK" }, "preset p")).toEqual({ a: "resolved-value" });
    expect(s.scrubText("resolved-value")).toBe("[redacted]");
    for (const name of ["VAULT_TOKEN", "TAI_ADMIN_KEY", "DATABASE_URL"])
      expect(() => s.resolve(`!ENV ${name}`, "preset p")).toThrow(
        new RegExp(`preset p: "!ENV ${name}" names the server's own configuration`),
      );
    s.learnMarkers({ x: "!ENV VAULT_TOKEN" });
    expect(s.scrubText("vault-value")).toBe("vault-value");
  });

  it("should know the configured credentials, including connection-URL passwords as written and decoded", () => {
    const config = {
      ...loadConfig({ TAI_ADMIN_KEY: "admin-key-0123456789" }),
      databaseUrl: "postgresql://u:db%40pass@h/db",
      redisUrl: "redis://:redis-pass@h:6379",
    };
    expect(
      configuredCredentials(config, { TAI_DEMO_SIGNING_KEY: "sign-key", ANTHROPIC_API_KEY: "anthropic-key" }).sort(),
    ).toEqual(["admin-key-0123456789", "anthropic-key", "db%40pass", "db@pass", "redis-pass", "sign-key"]);
  });
});
