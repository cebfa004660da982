import { definitionRefusal } from "../helpers/refusals.ts";
import { describe, expect, it } from "vitest";
import { CONFIG_RULE, loadConfig } from "../../src/config.ts";

const refusal = (env: NodeJS.ProcessEnv) => definitionRefusal(() => loadConfig(env));

describe("configuration from the environment (README's table)", () => {
  it("should apply the documented defaults, counting an empty value as unset", () => {
    expect(loadConfig({ PORT: "", TAI_DEMO: "" })).toMatchObject({
      port: 4000,
      host: "127.0.0.1",
      databaseUrl: "file:./data/tai42.db",
      redisPrefix: "tai42:",
      modules: [],
      anonymousRole: "USER",
      graphiql: true,
      maxBodyBytes: 1_048_576,
      demo: true,
      shutdownGraceSeconds: 10,
      mcpSessions: true,
    });
  });

  it("should read lists, booleans in any spelling, roles in any case and trim the public URL", () => {
    expect(
      loadConfig({
        TAI_MODULES: " a.ts, ,b.ts",
        TAI_GRAPHIQL: "OFF",
        TAI_DEMO: "yes",
        TAI_ANONYMOUS_ROLE: "reader",
        TAI_PUBLIC_URL: "https://x.example//",
        PORT: "0",
      }),
    ).toMatchObject({
      modules: ["a.ts", "b.ts"],
      graphiql: false,
      demo: true,
      anonymousRole: "READER",
      publicUrl: "https://x.example",
      port: 0,
    });
  });

  it("should name every bad variable at once, each at its own path, with the rule config.env", () => {
    const e = refusal({ PORT: "70000", TAI_GRAPHIQL: "maybe", REDIS_URL: "http://r", TAI_DB_POOL: "0" });
    expect(e.rule).toBe(CONFIG_RULE);
    expect(e.issues.map((i) => i.path)).toEqual(["/PORT", "/REDIS_URL", "/TAI_GRAPHIQL", "/TAI_DB_POOL"]);
    expect(e.message).toContain('PORT: must be an integer from 0 to 65535 (got "70000")');
    expect(e.message).toContain('TAI_GRAPHIQL: must be 1/0, true/false, yes/no or on/off (got "maybe")');
    expect(e.message).toContain("REDIS_URL: must start with redis:// or rediss://");
    expect(e.message).toContain("TAI_DB_POOL: must be an integer from 1 to 1000");
  });

  it("should name a TAI_DEAD_AFTER_SECONDS shorter than the heartbeat and a bad tracing URL together with other bad variables", () => {
    const e = refusal({
      TAI_DEAD_AFTER_SECONDS: "5",
      TAI_DB_POOL: "0",
      PORT: "x",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://y",
    });
    expect(e.issues.map((i) => i.path)).toEqual([
      "/PORT",
      "/TAI_DB_POOL",
      "/TAI_DEAD_AFTER_SECONDS",
      "/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]);
    expect(e.message).toContain("TAI_DEAD_AFTER_SECONDS: must be longer than TAI_HEARTBEAT_SECONDS (10)");
    expect(e.message).toContain(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http:// or https:// URL (got "ftp://y")',
    );
  });

  it.each([
    ["DATABASE_URL", "mysql://db", "must start with file: (SQLite) or postgresql:// (PostgreSQL)"],
    ["TAI_ADMIN_KEY", "short", "must be at least 16 characters"],
    ["TAI_MAX_BODY_BYTES", "12", "must be an integer from 1024 to"],
    ["TAI_SHUTDOWN_GRACE_SECONDS", "1.5", "must be an integer from 0 to 3600"],
  ])("should refuse %s=%s, naming it", (name, value, message) => {
    expect(refusal({ [name]: value }).message).toContain(`${name}: ${message}`);
  });
});
