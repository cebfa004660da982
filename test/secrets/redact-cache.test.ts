import { afterEach, describe, expect, it, vi } from "vitest";
import type { StreamEvent } from "../../src/agent/events.ts";
import { RunSecrets } from "../../src/agent/tools-agent/run-secrets.ts";
import { loadConfig } from "../../src/config.ts";
import { DEFAULT_REDACT_CACHE_SIZE, Secrets } from "../../src/secrets/secrets.ts";

const value = (i: number) => `redacted-value-${String(i).padStart(6, "0")}`;

describe("the bounded cache of redacted values", () => {
  it("should forget the least recently redacted value once N more were redacted, in every form", () => {
    const secrets = new Secrets({ redactCacheSize: 3 });
    secrets.remember(value(0));
    expect(secrets.scrubText(value(0))).toBe("[redacted]");
    for (let i = 1; i <= 3; i++) secrets.remember(value(i));
    expect(secrets.scrubText(value(0))).toBe(value(0));
    const hex = Buffer.from(value(0)).toString("hex");
    expect(secrets.scrubText(hex)).toBe(hex);
    expect(secrets.scrubText(`${value(1)} ${value(3)}`)).toBe("[redacted] [redacted]");
  });

  it("should keep a redacted value shorter than 8 characters to its own run: any caller may redact a word", () => {
    const secrets = new Secrets();
    const run = secrets.scope();
    secrets.remember("object", run);
    expect(run.scrubText("an object")).toBe("an [redacted]");
    expect(secrets.scrubText("an object")).toBe("an object");
  });

  it("should keep a value redacted again as the most recent one", () => {
    const secrets = new Secrets({ redactCacheSize: 2 });
    secrets.remember(value(0));
    secrets.remember(value(1));
    secrets.remember(value(0));
    secrets.remember(value(2));
    expect(secrets.scrubText(`${value(0)} ${value(1)} ${value(2)}`)).toBe(`[redacted] ${value(1)} [redacted]`);
  });

  it("should never forget a configured secret, even one a run also redacted or one sharing a redacted value's forms", () => {
    const secrets = new Secrets({ redactCacheSize: 2, env: { API: "api-value-1234" } });
    secrets.add("configured-credential");
    secrets.remember("configured-credential");
    secrets.resolve("!ENV API", "preset p");
    for (let i = 0; i < 10; i++) secrets.remember(value(i));
    expect(secrets.scrubText("configured-credential api-value-1234")).toBe("[redacted] [redacted]");
    expect(secrets.scrubText(Buffer.from("configured-credential").toString("base64"))).toBe("[redacted]");
  });

  it("should keep a run's own redacted value in its scope after the runtime forgot it", () => {
    const secrets = new Secrets({ redactCacheSize: 1 });
    const scope = secrets.scope();
    secrets.remember(value(0), scope);
    secrets.remember(value(1));
    expect(secrets.scrubText(value(0))).toBe(value(0));
    expect(scope.scrubText(value(0))).toBe("[redacted]");
  });

  it("should hold 1024 values by default, configurable by TAI_REDACT_CACHE_SIZE from 1", () => {
    expect(DEFAULT_REDACT_CACHE_SIZE).toBe(1024);
    expect(loadConfig({}).redactCacheSize).toBe(1024);
    expect(loadConfig({ TAI_REDACT_CACHE_SIZE: "50" }).redactCacheSize).toBe(50);
    expect(() => loadConfig({ TAI_REDACT_CACHE_SIZE: "0" })).toThrow(
      /TAI_REDACT_CACHE_SIZE: must be an integer from 1/,
    );
    expect(() => loadConfig({ TAI_REDACT_CACHE_SIZE: "many" })).toThrow(/TAI_REDACT_CACHE_SIZE/);
  });

  it("should report as longest the longest form still known, shrinking when a long value is forgotten", () => {
    const secrets = new Secrets({ redactCacheSize: 1 });
    const long = "x".repeat(40);
    secrets.remember(long);
    expect(secrets.longest()).toBe(80); // its hex
    secrets.remember("short-one");
    expect(secrets.longest()).toBe(18);
  });
});

describe("the cost of scrubbing", () => {
  afterEach(() => vi.restoreAllMocks());

  /** How many substring checks one scrub of `text` makes with `count` redacted values known. */
  function checks(count: number, text: string): number {
    const secrets = new Secrets({ redactCacheSize: count });
    for (let i = 0; i < count; i++) secrets.remember(value(i));
    const includes = vi.spyOn(String.prototype, "includes");
    const startsWith = vi.spyOn(String.prototype, "startsWith");
    const indexOf = vi.spyOn(String.prototype, "indexOf");
    const split = vi.spyOn(String.prototype, "split");
    expect(secrets.scrubText(text)).toBe(text.replaceAll(value(0), "[redacted]"));
    const n =
      includes.mock.calls.length + startsWith.mock.calls.length + indexOf.mock.calls.length + split.mock.calls.length;
    vi.restoreAllMocks();
    return n;
  }

  it("should check as many candidates with 10,000 known values as with 10", () => {
    const text = `an ordinary log line about ${value(0)} and nothing else of note`.repeat(4);
    expect(checks(10_000, text)).toBe(checks(10, text));
  });
});

describe("streams", () => {
  it("should hold back enough to catch a secret's longest form cut across deltas", async () => {
    const secrets = new Secrets();
    const hex = Buffer.from("stream-secret-value").toString("hex");
    const run = new RunSecrets(secrets.scope());
    secrets.remember("stream-secret-value");
    const text = `the bytes are ${hex.toUpperCase()} ok`;
    for (let cut = 1; cut < text.length; cut += 5) {
      async function* deltas(): AsyncGenerator<StreamEvent> {
        for (let i = 0; i < text.length; i += cut)
          yield { type: "message_delta", final: false, text: text.slice(i, i + cut), agent: null };
      }
      let out = "";
      for await (const e of run.scrubStream(deltas())) out += (e as { text: string }).text;
      expect(out, `cut every ${cut}`).toBe("the bytes are [redacted] ok");
    }
  });
});
