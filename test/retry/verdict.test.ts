import { describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { DEFAULT_TRANSIENT_KINDS, ERROR_KINDS, ToolError, type ErrorKind } from "../../src/errors.ts";
import { DEFAULT_BACKOFF, resolvePolicy, type RetryPolicy, type RetryPolicyInit } from "../../src/retry/policy.ts";
import { backoffSeconds, nextWait, shouldRetry } from "../../src/retry/verdict.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { DefinitionError } from "../../src/definition-error.ts";

const policy = (init: Partial<RetryPolicyInit> = {}): RetryPolicy =>
  resolvePolicy("t", { maxAttempts: 5, idempotent: true, ...init });
const fail = (kind: ErrorKind, extra: { retryable?: boolean; retryAfterSeconds?: number } = {}) =>
  new ToolError(`${kind} failure`, { kind, ...extra });
const NON_TRANSIENT = ERROR_KINDS.filter((k) => !DEFAULT_TRANSIENT_KINDS.includes(k));

/** Catches what `fn` throws, failing the test when it does not throw. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a throw");
}

describe("no policy", () => {
  it("should stop after the first attempt for every kind of failure", () => {
    for (const kind of ERROR_KINDS) expect(nextWait(undefined, 1, fail(kind, { retryable: true }))).toBeNull();
  });
});

describe("maxAttempts is the total attempt budget", () => {
  it("should never retry under maxAttempts 1, even a transient failure", () => {
    const p = resolvePolicy("t", { maxAttempts: 1, idempotent: false, retryable: true });
    expect(nextWait(p, 1, fail("TIMEOUT"))).toBeNull();
    expect(nextWait(p, 1, fail("UPSTREAM", { retryable: true }))).toBeNull();
  });

  it.each([
    [2, [true, false]],
    [3, [true, true, false]],
    [5, [true, true, true, true, false]],
  ])("should allow exactly %i attempts in all", (maxAttempts, expected) => {
    const p = policy({ maxAttempts, backoff: { initialSeconds: 1 } });
    const verdicts = expected.map((_, i) => nextWait(p, i + 1, fail("UNAVAILABLE")) !== null);
    expect(verdicts).toEqual(expected);
  });
});

describe("the double-send guard (idempotent is required)", () => {
  const notIdempotent: [string, Record<string, unknown>][] = [
    ["idempotent: false", { maxAttempts: 3, idempotent: false }],
    ["idempotent missing", { maxAttempts: 3 }],
    ["idempotent: 'yes'", { maxAttempts: 2, idempotent: "yes" }],
  ];

  it.each(notIdempotent)(
    "should refuse a retrying policy with %s in resolvePolicy, naming idempotent",
    (_label, init) => {
      const e = thrown(() => resolvePolicy("fetch_page", init as unknown as RetryPolicyInit));
      expect(e).toBeInstanceOf(DefinitionError);
      expect((e as DefinitionError).issues.map((i) => i.path)).toContain("/idempotent");
      expect(e.message).toContain("idempotent");
      expect(e.message).toContain("fetch_page");
    },
  );

  it("should accept maxAttempts 1 with idempotent false (no retry, no double send)", () => {
    expect(resolvePolicy("t", { maxAttempts: 1, idempotent: false })).toMatchObject({
      maxAttempts: 1,
      idempotent: false,
    });
  });

  it("should refuse it in app.tool({ retry }), naming idempotent and registering nothing", () => {
    const app = new App();
    const e = thrown(() =>
      app.tool(
        {
          name: "send_mail",
          description: "Send a mail.",
          input: z.object({}),
          retry: { maxAttempts: 3, idempotent: false },
        },
        () => "sent",
      ),
    );
    expect(e).toBeInstanceOf(DefinitionError);
    expect((e as DefinitionError).rule).toBe("tool.retry-policy");
    expect(e.message).toContain("idempotent");
    expect(app.tools.has("send_mail")).toBe(false);
    expect(app.policies.has("send_mail")).toBe(false);
  });

  it("should refuse it in app.retryPolicy, naming idempotent and declaring nothing", () => {
    const app = new App();
    const e = thrown(() => app.retryPolicy("mytool_monitor", { maxAttempts: 2, idempotent: false }));
    expect(e).toBeInstanceOf(DefinitionError);
    expect(e.message).toContain("idempotent");
    expect(e.message).toContain("mytool_monitor");
    expect(app.policies.has("mytool_monitor")).toBe(false);
  });

  it("should refuse it in defineTool, naming idempotent", () => {
    const e = thrown(() =>
      defineTool({
        name: "send_mail",
        description: "Send a mail.",
        parameters: { type: "object" },
        execute: () => "sent",
        retry: { maxAttempts: 4, idempotent: false },
      }),
    );
    expect(e).toBeInstanceOf(DefinitionError);
    expect((e as DefinitionError).rule).toBe("tool.retry-policy");
    expect(e.message).toContain("idempotent");
  });
});

describe("retryable: which kinds are retried", () => {
  it("should resolve true (and the default) to exactly the default transient kinds", () => {
    expect(DEFAULT_TRANSIENT_KINDS).toEqual(["TIMEOUT", "RATE_LIMITED", "UNAVAILABLE", "NETWORK"]);
    expect(policy({ retryable: true }).retryableKinds).toEqual(DEFAULT_TRANSIENT_KINDS);
    expect(policy().retryableKinds).toEqual(DEFAULT_TRANSIENT_KINDS);
  });

  it.each(DEFAULT_TRANSIENT_KINDS)("should retry %s under retryable: true", (kind) => {
    expect(shouldRetry(policy({ retryable: true }), fail(kind))).toBe(true);
  });

  it.each(NON_TRANSIENT)("should not retry %s under retryable: true", (kind) => {
    expect(shouldRetry(policy({ retryable: true }), fail(kind))).toBe(false);
  });

  it("should retry exactly the listed kinds under a list", () => {
    const p = policy({ retryable: ["UPSTREAM", "RATE_LIMITED"] });
    expect(p.retryableKinds).toEqual(["UPSTREAM", "RATE_LIMITED"]);
    const retried = ERROR_KINDS.filter((k) => shouldRetry(p, fail(k)));
    expect(retried).toEqual(["RATE_LIMITED", "UPSTREAM"]);
  });

  it("should retry nothing under an empty list", () => {
    const p = policy({ retryable: [] });
    expect(ERROR_KINDS.filter((k) => shouldRetry(p, fail(k)))).toEqual([]);
  });

  it("should retry no kind under retryable: false", () => {
    const p = policy({ retryable: false });
    expect(p.retryableKinds).toEqual([]);
    expect(ERROR_KINDS.filter((k) => shouldRetry(p, fail(k)))).toEqual([]);
  });

  it("should never retry a thrown non-ToolError (INTERNAL, no verdict) under the default kinds", () => {
    expect(shouldRetry(policy(), ToolError.fromUnknown(new Error("boom")))).toBe(false);
  });
});

describe("the error's own verdict wins in both directions", () => {
  const modes: [string, RetryPolicyInit["retryable"]][] = [
    ["true", true],
    ["a list", ["UPSTREAM", "TIMEOUT"]],
    ["false", false],
  ];

  it.each(modes)("should retry every kind whose error says retryable: true under retryable %s", (_label, retryable) => {
    const p = policy({ retryable });
    for (const kind of ERROR_KINDS) expect(shouldRetry(p, fail(kind, { retryable: true })), kind).toBe(true);
  });

  it.each(modes)("should retry no kind whose error says retryable: false under retryable %s", (_label, retryable) => {
    const p = policy({ retryable });
    for (const kind of ERROR_KINDS) expect(shouldRetry(p, fail(kind, { retryable: false })), kind).toBe(false);
  });

  it("should let a false verdict veto a listed kind", () => {
    const p = policy({ retryable: ["UPSTREAM"] });
    expect(shouldRetry(p, fail("UPSTREAM"))).toBe(true);
    expect(shouldRetry(p, fail("UPSTREAM", { retryable: false }))).toBe(false);
    expect(nextWait(p, 1, fail("UPSTREAM", { retryable: false }))).toBeNull();
  });

  it("should let a true verdict admit an unlisted kind", () => {
    const p = policy({ retryable: ["UPSTREAM"], backoff: { initialSeconds: 2 } });
    expect(shouldRetry(p, fail("CONFLICT"))).toBe(false);
    expect(nextWait(p, 1, fail("CONFLICT", { retryable: true }))).toBe(2);
  });

  it("should retry a true verdict under retryable: false", () => {
    const p = policy({ retryable: false, backoff: { initialSeconds: 1 } });
    expect(nextWait(p, 1, fail("UPSTREAM", { retryable: true }))).toBe(1);
  });

  it("should still honour the budget when the verdict is true", () => {
    const p = policy({ maxAttempts: 2, retryable: false });
    expect(nextWait(p, 2, fail("UPSTREAM", { retryable: true }))).toBeNull();
  });

  it("should never retry an error with neither a verdict nor a listed kind", () => {
    const p = policy({ retryable: ["TIMEOUT"] });
    for (const kind of ERROR_KINDS.filter((k) => k !== "TIMEOUT")) expect(nextWait(p, 1, fail(kind)), kind).toBeNull();
  });
});

describe("backoff", () => {
  it("should default to 0.5s initial, multiplier 2, cap 30s", () => {
    expect(policy().backoff).toEqual({ initialSeconds: 0.5, multiplier: 2, capSeconds: 30 });
    expect(DEFAULT_BACKOFF).toEqual({ initialSeconds: 0.5, multiplier: 2, capSeconds: 30 });
  });

  it("should keep the defaults for backoff fields left out", () => {
    expect(policy({ backoff: { capSeconds: 4 } }).backoff).toEqual({
      initialSeconds: 0.5,
      multiplier: 2,
      capSeconds: 4,
    });
  });

  it.each([
    // min(8, 0.5 * 2^(n-1))
    [1, 0.5],
    [2, 1],
    [3, 2],
    [4, 4],
    [5, 8],
    [6, 8],
  ])("should wait min(cap, initial * multiplier^(n-1)) after attempt %i: %ss with 0.5/2/cap 8", (n, seconds) => {
    const p = policy({ maxAttempts: 10, backoff: { initialSeconds: 0.5, multiplier: 2, capSeconds: 8 } });
    expect(backoffSeconds(p, n)).toBe(seconds);
    expect(nextWait(p, n, fail("TIMEOUT"))).toBe(seconds);
  });

  it.each([
    // min(20, 1 * 3^(n-1))
    [1, 1],
    [2, 3],
    [3, 9],
    [4, 20],
    [5, 20],
    [6, 20],
  ])("should wait %s→%ss with initial 1, multiplier 3, cap 20", (n, seconds) => {
    expect(backoffSeconds(policy({ backoff: { initialSeconds: 1, multiplier: 3, capSeconds: 20 } }), n)).toBe(seconds);
  });

  it("should wait the same every time with multiplier 1", () => {
    const p = policy({ backoff: { initialSeconds: 0.25, multiplier: 1, capSeconds: 30 } });
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffSeconds(p, n))).toEqual([0.25, 0.25, 0.25, 0.25, 0.25, 0.25]);
  });

  it("should retry at once with initialSeconds 0", () => {
    expect(nextWait(policy({ backoff: { initialSeconds: 0 } }), 3, fail("NETWORK"))).toBe(0);
  });

  it("should widen the wait to a retryAfterSeconds beyond the cap", () => {
    const p = policy({ maxAttempts: 10, backoff: { initialSeconds: 0.5, multiplier: 2, capSeconds: 8 } });
    expect(nextWait(p, 1, fail("RATE_LIMITED", { retryAfterSeconds: 60 }))).toBe(60);
    expect(nextWait(p, 6, fail("RATE_LIMITED", { retryAfterSeconds: 12 }))).toBe(12);
    expect(backoffSeconds(p, 2, 3)).toBe(3);
  });

  it("should not shrink the wait for a smaller retryAfterSeconds", () => {
    const p = policy({ backoff: { initialSeconds: 0.5, multiplier: 2, capSeconds: 8 } });
    expect(nextWait(p, 4, fail("RATE_LIMITED", { retryAfterSeconds: 1 }))).toBe(4);
    expect(backoffSeconds(p, 6, 0)).toBe(8);
  });

  it("should not let retryAfterSeconds admit a failure the verdict refuses", () => {
    expect(nextWait(policy({ retryable: false }), 1, fail("RATE_LIMITED", { retryAfterSeconds: 5 }))).toBeNull();
  });
});

describe("invalid policy fields are each named", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["maxAttempts 0", { maxAttempts: 0, idempotent: true }, "/maxAttempts"],
    ["maxAttempts 2.5", { maxAttempts: 2.5, idempotent: true }, "/maxAttempts"],
    ["maxAttempts as a string", { maxAttempts: "3", idempotent: true }, "/maxAttempts"],
    ["maxAttempts missing", { idempotent: true }, "/maxAttempts"],
    [
      "an unknown kind in the list",
      { maxAttempts: 2, idempotent: true, retryable: ["TIMEOUT", "FLAKY"] },
      "/retryable/1",
    ],
    ["retryable as a string", { maxAttempts: 2, idempotent: true, retryable: "TIMEOUT" }, "/retryable"],
    [
      "a negative initialSeconds",
      { maxAttempts: 2, idempotent: true, backoff: { initialSeconds: -1 } },
      "/backoff/initialSeconds",
    ],
    [
      "initialSeconds as a string",
      { maxAttempts: 2, idempotent: true, backoff: { initialSeconds: "1" } },
      "/backoff/initialSeconds",
    ],
    ["a multiplier below 1", { maxAttempts: 2, idempotent: true, backoff: { multiplier: 0.5 } }, "/backoff/multiplier"],
    [
      "a NaN capSeconds",
      { maxAttempts: 2, idempotent: true, backoff: { capSeconds: Number.NaN } },
      "/backoff/capSeconds",
    ],
    [
      "a capSeconds as a string",
      { maxAttempts: 2, idempotent: true, backoff: { capSeconds: "8" } },
      "/backoff/capSeconds",
    ],
    ["backoff as a number", { maxAttempts: 2, idempotent: true, backoff: 5 }, "/backoff"],
    ["an unknown backoff field", { maxAttempts: 2, idempotent: true, backoff: { jitter: true } }, "/backoff/jitter"],
    ["an unknown policy field", { maxAttempts: 2, idempotent: true, attempts: 3 }, "/attempts"],
  ];

  it.each(cases)("should refuse %s, naming it", (_label, init, path) => {
    const e = thrown(() => resolvePolicy("t", init as unknown as RetryPolicyInit)) as DefinitionError;
    expect(e).toBeInstanceOf(DefinitionError);
    expect(e.subject).toBe("t");
    expect(e.issues.map((i) => i.path)).toContain(path);
    expect(e.message).toContain(path);
  });

  it("should name every broken field at once", () => {
    const e = thrown(() =>
      resolvePolicy("t", {
        maxAttempts: 0,
        idempotent: "no",
        retryable: ["NOPE"],
        backoff: { multiplier: 0 },
      } as unknown as RetryPolicyInit),
    ) as DefinitionError;
    expect(e.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(["/maxAttempts", "/idempotent", "/retryable/0", "/backoff/multiplier"]),
    );
  });

  it.each([null, "3", 3])("should refuse a policy that is not an object (%s)", (init) => {
    const e = thrown(() => resolvePolicy("t", init as unknown as RetryPolicyInit)) as DefinitionError;
    expect(e).toBeInstanceOf(DefinitionError);
    expect(e.message).toContain("must be an object");
  });

  it("should treat a backoff field given as undefined as left out", () => {
    expect(policy({ backoff: { initialSeconds: undefined, capSeconds: 2 } }).backoff).toEqual({
      initialSeconds: 0.5,
      multiplier: 2,
      capSeconds: 2,
    });
  });

  it("should de-duplicate a repeated kind in the list", () => {
    expect(policy({ retryable: ["TIMEOUT", "TIMEOUT", "NETWORK"] }).retryableKinds).toEqual(["TIMEOUT", "NETWORK"]);
  });
});
