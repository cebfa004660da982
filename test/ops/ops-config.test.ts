import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { DefinitionError } from "../../src/definition-error.ts";

/** The operations variables (docs/deploy.md §"Configuration"): their defaults, and a clear error naming a bad one. */
describe("operations configuration", () => {
  it("should default to a 2 s sync, a 10 s heartbeat, death after 30 s, a pool of 10, loopback metrics, no unready delay and no tracing", () => {
    expect(loadConfig({})).toMatchObject({
      syncSeconds: 2,
      heartbeatSeconds: 10,
      deadAfterSeconds: 30,
      dbPool: 10,
      metrics: "loopback",
      unreadySeconds: 5,
      otlpTracesUrl: undefined,
    });
  });

  it("should derive death from the heartbeat when only the heartbeat is set, and accept fractions of a second", () => {
    expect(loadConfig({ TAI_HEARTBEAT_SECONDS: "0.5" })).toMatchObject({
      heartbeatSeconds: 0.5,
      deadAfterSeconds: 1.5,
    });
    expect(
      loadConfig({
        TAI_HEARTBEAT_SECONDS: "5",
        TAI_DEAD_AFTER_SECONDS: "12",
        TAI_SYNC_SECONDS: "0.25",
        TAI_DB_POOL: "25",
        TAI_METRICS: "ADMIN",
        TAI_UNREADY_SECONDS: "15",
      }),
    ).toMatchObject({
      heartbeatSeconds: 5,
      deadAfterSeconds: 12,
      syncSeconds: 0.25,
      dbPool: 25,
      metrics: "admin",
      unreadySeconds: 15,
    });
  });

  it("should trace to OTEL_EXPORTER_OTLP_ENDPOINT's /v1/traces, or to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, unless OTEL_SDK_DISABLED=true", () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).otlpTracesUrl).toBe(
      "http://collector:4318/v1/traces",
    );
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b:4318/traces",
      }).otlpTracesUrl,
    ).toBe("http://b:4318/traces");
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_SDK_DISABLED: "true" }).otlpTracesUrl,
    ).toBeUndefined();
  });

  it.each([
    ["TAI_SYNC_SECONDS", "soon", /TAI_SYNC_SECONDS: must be a number of seconds/],
    ["TAI_SYNC_SECONDS", "0", /TAI_SYNC_SECONDS: must be a number of seconds from 0.05/],
    ["TAI_HEARTBEAT_SECONDS", "-1", /TAI_HEARTBEAT_SECONDS: must be a number of seconds/],
    ["TAI_DB_POOL", "0", /TAI_DB_POOL: must be an integer from 1 to 1000/],
    ["TAI_DB_POOL", "2.5", /TAI_DB_POOL: must be an integer/],
    ["TAI_METRICS", "everyone", /TAI_METRICS: must be off, loopback, admin or public/],
    ["TAI_UNREADY_SECONDS", "forever", /TAI_UNREADY_SECONDS: must be a number of seconds/],
    [
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "collector:4318",
      /OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:\/\/ or https:\/\/ URL/,
    ],
  ])("should refuse %s=%s, naming the variable", (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(DefinitionError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it("should give a client 60 s to send a request and 20 s (or the request timeout if shorter) to send its headers, unless set", () => {
    expect(loadConfig({})).toMatchObject({ requestTimeoutSeconds: 60, headersTimeoutSeconds: 20 });
    expect(loadConfig({ TAI_REQUEST_TIMEOUT_SECONDS: "5" })).toMatchObject({
      requestTimeoutSeconds: 5,
      headersTimeoutSeconds: 5,
    });
    expect(loadConfig({ TAI_REQUEST_TIMEOUT_SECONDS: "90", TAI_HEADERS_TIMEOUT_SECONDS: "1.5" })).toMatchObject({
      requestTimeoutSeconds: 90,
      headersTimeoutSeconds: 1.5,
    });
  });

  it("should refuse a headers timeout longer than the request timeout, and a timeout out of range, naming the variable", () => {
    expect(() => loadConfig({ TAI_REQUEST_TIMEOUT_SECONDS: "10", TAI_HEADERS_TIMEOUT_SECONDS: "30" })).toThrow(
      /TAI_HEADERS_TIMEOUT_SECONDS: must be at most TAI_REQUEST_TIMEOUT_SECONDS \(10\)/,
    );
    expect(() => loadConfig({ TAI_REQUEST_TIMEOUT_SECONDS: "0" })).toThrow(
      /TAI_REQUEST_TIMEOUT_SECONDS: must be a number of seconds from 0.5 to 3600/,
    );
    expect(() => loadConfig({ TAI_HEADERS_TIMEOUT_SECONDS: "never" })).toThrow(
      /TAI_HEADERS_TIMEOUT_SECONDS: must be a number of seconds/,
    );
  });

  it("should refuse a death delay no longer than the heartbeat: every instance would look gone between its own beats", () => {
    expect(() => loadConfig({ TAI_HEARTBEAT_SECONDS: "10", TAI_DEAD_AFTER_SECONDS: "10" })).toThrow(
      /TAI_DEAD_AFTER_SECONDS: must be longer than TAI_HEARTBEAT_SECONDS \(10\)/,
    );
  });
});
