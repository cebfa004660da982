import { describe, expect, it } from "vitest";
import { formsOf, MIN_SECRET_LENGTH } from "../../src/secrets/forms.ts";
import { scrubValueOf, stringsIn } from "../../src/secrets/scrub.ts";
import { SecretScope, Secrets } from "../../src/secrets/secrets.ts";

/** A scrubber of strings knowing `values` (in all their forms). */
const scrubbing = (values: string[]) => {
  const scope = new SecretScope();
  values.forEach((v) => scope.add(v));
  return (text: string) => scope.scrubText(text);
};

describe("the forms a secret is scrubbed in", () => {
  it("should give a value once, first as written, then JSON-escaped when that differs", () => {
    expect(formsOf("plain-value")[0]).toBe("plain-value");
    expect(formsOf("plain-value").filter((f) => f === "plain-value")).toHaveLength(1);
    expect(formsOf('quo"te\\back').slice(0, 2)).toEqual(['quo"te\\back', 'quo\\"te\\\\back']);
  });
});

describe("scrubText", () => {
  it("should replace every occurrence of every value", () => {
    expect(scrubbing(["abcd", "efgh"])("abcd xx abcd yy efgh")).toBe("[redacted] xx [redacted] yy [redacted]");
  });
});

describe("scrubValueOf", () => {
  it("should return the same value when there is nothing to scrub or nothing changes", () => {
    const value = { a: ["x", { b: "y" }] };
    expect(scrubValueOf(value, scrubbing([]))).toBe(value);
    expect(scrubValueOf(value, scrubbing(["zzzz"]))).toBe(value);
  });

  it("should copy only the branches that change, keeping the others by identity", () => {
    const untouched = { deep: ["safe"] };
    const value = { keep: untouched, change: { s: "token-1234" } };
    const out = scrubValueOf(value, scrubbing(["token-1234"]));
    expect(out).not.toBe(value);
    expect(out.keep).toBe(untouched);
    expect(out.change).toEqual({ s: "[redacted]" });
    expect(value.change.s).toBe("token-1234");
  });

  it("should keep object keys, and leave dates, buffers and class instances untouched", () => {
    class Box {
      constructor(readonly s: string) {}
    }
    const date = new Date(0);
    const box = new Box("token-1234");
    const out = scrubValueOf({ "token-1234": "key stays", date, box, list: ["token-1234"] }, scrubbing(["token-1234"]));
    expect(Object.keys(out)).toContain("token-1234");
    expect(out.date).toBe(date);
    expect(out.box).toBe(box);
    expect(out.list).toEqual(["[redacted]"]);
  });

  it("should keep a null-prototype object's shape", () => {
    const bare = Object.assign(Object.create(null) as Record<string, string>, { s: "token-1234" });
    const out = scrubValueOf(bare, scrubbing(["token-1234"]));
    expect(Object.getPrototypeOf(out)).toBeNull();
    expect(out.s).toBe("[redacted]");
  });
});

describe("stringsIn", () => {
  it("should collect every string long enough to track, however deep, and nothing else", () => {
    expect(MIN_SECRET_LENGTH).toBe(4);
    expect(stringsIn({ a: "abc", b: "abcd", c: [1, "efghij", { d: null, e: "klmn" }], f: true })).toEqual([
      "abcd",
      "efghij",
      "klmn",
    ]);
    expect(stringsIn("solo")).toEqual(["solo"]);
    expect(stringsIn(undefined)).toEqual([]);
  });
});

describe("Secrets.resolve and learnMarkers", () => {
  it("should resolve markers inside nested data from the lookup, remembering each value", () => {
    const secrets = new Secrets({ lookup: (n) => ({ TOKEN: "tok-123456", HOST: "db.internal" })[n] });
    expect(secrets.resolve({ auth: ["!ENV TOKEN"], host: "!ENV HOST", n: 1 }, "preset p")).toEqual({
      auth: ["tok-123456"],
      host: "db.internal",
      n: 1,
    });
    expect(secrets.scrubText("tok-123456 @ db.internal")).toBe("[redacted] @ [redacted]");
  });

  it("should fail, naming the variable and the owner, when the variable is not set or empty", () => {
    const secrets = new Secrets({ env: { EMPTY: "" } });
    expect(() => secrets.resolve("!ENV MISSING", "preset p")).toThrow(
      "preset p: the environment variable MISSING is not set",
    );
    expect(() => secrets.resolve("!ENV EMPTY", "preset p")).toThrow(
      "preset p: the environment variable EMPTY is not set",
    );
  });

  it("should not repeat a failing config provider's own message, which may quote what it read", () => {
    const secrets = new Secrets({
      lookup: () => {
        throw new Error("parse error near 'hunter2'");
      },
    });
    let message = "";
    try {
      secrets.resolve("!ENV X", "preset p");
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe("preset p: the config provider failed to look up X");
  });

  it("should learn the values of stored markers it may resolve, and none of server configuration or failing lookups", () => {
    const secrets = new Secrets({ env: { API_TOKEN: "api-token-value", TAI_ADMIN_KEY: "admin-key-value" } });
    secrets.learnMarkers({ a: "!ENV API_TOKEN", b: "!ENV TAI_ADMIN_KEY", c: "!ENV UNSET" });
    expect(secrets.scrubText("api-token-value admin-key-value")).toBe("[redacted] admin-key-value");
    const failing = new Secrets({
      lookup: () => {
        throw new Error("bad file");
      },
    });
    expect(() => failing.learnMarkers({ a: "!ENV X" })).not.toThrow();
  });
});
