import { describe, expect, it } from "vitest";
import { scopeKey, storableJson, storableText, storableTextOrNull, unstorableIssues } from "../../src/db/storable.ts";

const NUL = "\u0000";
const HIGH = "\uD83D"; // the first half of a surrogate pair, alone
const LOW = "\uDE00"; // the second half, alone
const PAIR = "\uD83D\uDE00"; // 😀, a valid pair

describe("storable text: what both databases can store", () => {
  it("should leave ordinary text, emoji included, as it is", () => {
    const text = `plain, accents é, emoji ${PAIR}`;
    expect(storableText(text)).toBe(text);
  });

  it("should replace NUL characters and lone surrogates with U+FFFD, keeping valid pairs", () => {
    expect(storableText(`a${NUL}b`)).toBe("a\uFFFDb");
    expect(storableText(`x${HIGH}y`)).toBe("x\uFFFDy");
    expect(storableText(`x${LOW}y`)).toBe("x\uFFFDy");
    expect(storableText(`${PAIR}${HIGH}`)).toBe(`${PAIR}\uFFFD`);
    expect(storableText(`${LOW}${HIGH}`)).toBe("\uFFFD\uFFFD");
  });

  it("should keep null and undefined as null for a nullable column", () => {
    expect(storableTextOrNull(null)).toBeNull();
    expect(storableTextOrNull(undefined)).toBeNull();
    expect(storableTextOrNull(`a${NUL}`)).toBe("a\uFFFD");
  });
});

describe("storableJson", () => {
  it("should return the very same value when nothing needs replacing", () => {
    const value = { a: ["x", { b: 1, c: null }], d: new Date(0) };
    expect(storableJson(value)).toBe(value);
  });

  it("should fix strings and keys at any depth, copying only what changed", () => {
    const untouched = { ok: ["fine"] };
    const value = { keep: untouched, list: ["ok", `bad${NUL}`], [`k${NUL}`]: 1 };
    const out = storableJson(value) as Record<string, unknown>;
    expect(out).not.toBe(value);
    expect(out.keep).toBe(untouched);
    expect(out.list).toEqual(["ok", "bad\uFFFD"]);
    expect(out["k\uFFFD"]).toBe(1);
    expect(Object.keys(out)).not.toContain(`k${NUL}`);
    expect((value.list as string[])[1]).toBe(`bad${NUL}`);
  });

  it("should pass numbers, booleans, null and dates through", () => {
    const date = new Date(5);
    expect(storableJson([1, true, null, date])).toEqual([1, true, null, date]);
    expect(storableJson(`x${NUL}`)).toBe("x\uFFFD");
  });
});

describe("unstorableIssues: refusing caller text that must be stored as given", () => {
  it("should find nothing in storable data", () => {
    expect(unstorableIssues({ a: ["x", PAIR], b: { c: 1 } }, "/input")).toEqual([]);
  });

  it("should name each unstorable string at its path, saying why", () => {
    expect(unstorableIssues({ a: `x${NUL}`, list: ["ok", `y${HIGH}`] }, "/input")).toEqual([
      { path: "/input/a", message: "contains a NUL character (U+0000), which cannot be stored" },
      {
        path: "/input/list/1",
        message: "contains a lone UTF-16 surrogate (not valid Unicode), which cannot be stored",
      },
    ]);
  });

  it("should name an unstorable key as both databases can show it, escaping / and ~ as a JSON pointer", () => {
    expect(unstorableIssues({ [`k${NUL}`]: "v", "a/b~c": { x: `${NUL}` } }, "")).toEqual([
      { path: "/k\uFFFD", message: "the key contains a NUL character (U+0000), which cannot be stored" },
      { path: "/a~1b~0c/x", message: "contains a NUL character (U+0000), which cannot be stored" },
    ]);
  });

  it("should check a bare string at the path given", () => {
    expect(unstorableIssues(`${NUL}`, "/answer")).toEqual([
      { path: "/answer", message: "contains a NUL character (U+0000), which cannot be stored" },
    ]);
  });

  it("should stop walking into further objects once 50 issues are found", () => {
    expect(unstorableIssues(Array.from({ length: 80 }, () => ({ v: NUL })))).toHaveLength(50);
  });
});

describe("scopeKey", () => {
  it("should store an idempotency scope as a fixed-size digest, the same for the same scope", () => {
    const scope = `caller${NUL}tool${NUL}${"k".repeat(5000)}`;
    expect(scopeKey(scope)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(scopeKey(scope)).toBe(scopeKey(scope));
    expect(scopeKey(scope)).not.toBe(scopeKey(`${scope}x`));
  });
});
