import { describe, expect, it } from "vitest";
import { Secrets } from "../../src/secrets/secrets.ts";
import { decodedBase64Runs } from "../helpers/leaks.ts";

const SECRET = "Pa55 w/rd+Ünï:&=?#-key";
const utf8 = (s: string) => Buffer.from(s, "utf8");
const reverse = (s: string) => [...s].reverse().join("");

/** Each covered encoding of a secret, by name. */
const ENCODINGS: Record<string, (s: string) => string> = {
  "as written": (s) => s,
  "JSON-escaped": (s) => JSON.stringify(s).slice(1, -1),
  "upper case": (s) => s.toUpperCase(),
  "lower case": (s) => s.toLowerCase(),
  reversed: reverse,
  "URL-encoded": encodeURIComponent,
  "URL-encoded, lower-case escapes": (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
  "form-encoded with + for spaces": (s) => encodeURIComponent(s).replace(/%20/g, "+"),
  "application/x-www-form-urlencoded": (s) => new URLSearchParams({ v: s }).toString().slice(2),
  hex: (s) => utf8(s).toString("hex"),
  "upper-case hex": (s) => utf8(s).toString("hex").toUpperCase(),
  base64: (s) => utf8(s).toString("base64"),
  "base64 without padding": (s) => utf8(s).toString("base64").replace(/=+$/, ""),
  base64url: (s) => utf8(s).toString("base64url"),
};

/** Secrets knowing `value` as a configured secret, or as a value a run redacted. */
function knowing(value: string, how: "configured" | "redacted"): Secrets {
  const secrets = new Secrets();
  if (how === "configured") secrets.add(value);
  else secrets.remember(value);
  return secrets;
}

describe.each(["configured", "redacted"] as const)("a %s secret in its encodings", (how) => {
  it.each(Object.keys(ENCODINGS))("should be found %s inside surrounding text", (name) => {
    const encoded = ENCODINGS[name](SECRET);
    const out = knowing(SECRET, how).scrubText(`before ${encoded} after`);
    expect(out).toBe("before [redacted] after");
  });

  it("should be found base64'd inside a longer text at every byte alignment, either alphabet", () => {
    const secrets = knowing(SECRET, how);
    const middle = utf8(SECRET).toString("latin1").slice(3, -3);
    for (const lead of ["", "x", "xy", "xyz"])
      for (const trail of ["", "!", "!?"])
        for (const alphabet of ["base64", "base64url"] as const) {
          const encoded = Buffer.concat([utf8(`message: ${lead}`), utf8(SECRET), utf8(`${trail} end`)]).toString(
            alphabet,
          );
          const out = secrets.scrubText(`data=${encoded};`);
          expect(out, `${alphabet} after "${lead}"`).toContain("[redacted]");
          expect(
            decodedBase64Runs(out).some((d) => d.includes(middle)),
            `${alphabet} after "${lead}"`,
          ).toBe(false);
        }
  });

  it("should be found in mixed case, case-folded", () => {
    const out = knowing("token-AbCdEf-123", how).scrubText("x TOKEN-abcdef-123 y tOkEn-aBcDeF-123 z");
    expect(out).toBe("x [redacted] y [redacted] z");
  });
});

describe("halves of a secret", () => {
  const CONFIGURED = "abcdefghijklmnopqrst";

  it("should find any part of a configured 8+ character secret that reveals half of it or more, covering the whole part", () => {
    const secrets = knowing(CONFIGURED, "configured");
    expect(secrets.scrubText("xx cdefghijkl yy")).toBe("xx [redacted] yy");
    expect(secrets.scrubText("xx bcdefghijklmnopqrs yy")).toBe("xx [redacted] yy");
    expect(secrets.scrubText("xx KLMNOPQRST yy")).toBe("xx [redacted] yy");
  });

  it("should leave a part shorter than 8 characters, even one that reveals half of a shorter secret", () => {
    expect(knowing(CONFIGURED, "configured").scrubText("xx cdefghijk yy")).toBe("xx cdefghijk yy");
    // "post" is half of "postgres", but also an ordinary word: parts under 8 characters are not matched on their own.
    expect(knowing("postgres", "configured").scrubText("a POST to /posts")).toBe("a POST to /posts");
  });

  it("should not match halves of a configured secret shorter than 8 characters", () => {
    expect(knowing("abcdefg", "configured").scrubText("xx abcd yy abcdefg")).toBe("xx abcd yy [redacted]");
  });

  it("should give a redacted (ctx.redact) value no halves: only the whole value and its encodings", () => {
    const secrets = knowing(CONFIGURED, "redacted");
    expect(secrets.scrubText("xx cdefghij yy")).toBe("xx cdefghij yy");
    expect(secrets.scrubText("xx abcdefghijklmnopqrst yy")).toBe("xx [redacted] yy");
  });
});

describe("merged matches", () => {
  /** Secrets that remember each of `values` as redacted. */
  const redacting = (...values: string[]) => {
    const secrets = new Secrets();
    values.forEach((v) => secrets.remember(v));
    return secrets;
  };

  it("should replace overlapping secrets by one [redacted]", () => {
    expect(redacting("abcd1234", "1234wxyz").scrubText("<abcd1234wxyz>")).toBe("<[redacted]>");
  });

  it("should replace adjacent secrets by one [redacted], so no boundary tells where one ends", () => {
    expect(redacting("abcd1234", "wxyz5678").scrubText("<abcd1234wxyz5678> <wxyz5678 abcd1234>")).toBe(
      "<[redacted]> <[redacted] [redacted]>",
    );
  });

  it("should merge a run's own secrets with the runtime's", () => {
    const secrets = new Secrets();
    secrets.add("runtime-secret");
    const scope = secrets.scope();
    scope.add("-scoped-one");
    expect(scope.scrubText("[runtime-secret-scoped-one]")).toBe("[[redacted]]");
  });
});

describe("server-made tokens", () => {
  it("should leave a UUID, an instant and a digest whole for a short secret in any case, and replace it only as the whole token", () => {
    const secrets = new Secrets();
    secrets.add("DEAD");
    const id = "2b1fdead-9c3e-4b5a-8d7f-0123456789ab";
    expect(secrets.scrub({ id, digest: "dead".repeat(16) })).toEqual({ id, digest: "dead".repeat(16) });
    expect(secrets.scrubText("dead")).toBe("[redacted]");
    expect(secrets.scrubText("a dead end")).toBe("a [redacted] end");
  });

  it("should not let the halves of a configured secret into a server-made token", () => {
    const secrets = new Secrets();
    secrets.add("2026120119");
    expect(secrets.scrubText("2026-12-01T19:00:00.000Z")).toBe("2026-12-01T19:00:00.000Z");
    expect(secrets.scrubText("on 20261201: 2026120119")).toBe("on [redacted]: [redacted]");
  });
});

describe("halves of a long configured secret", () => {
  it("should find any 64-character part of a configured secret longer than 128 characters", () => {
    const key = Array.from({ length: 40 }, (_, i) => `line-${i}-of-the-key`).join("\n");
    const secrets = knowing(key, "configured");
    const part = key.slice(100, 164);
    expect(secrets.scrubText(`leaked: ${part}!`)).toBe("leaked: [redacted]!");
    expect(secrets.scrubText(`leaked: ${JSON.stringify(part)}`)).toBe('leaked: "[redacted]"');
    expect(secrets.scrubText(`short: ${key.slice(100, 150)}!`)).toBe(`short: ${key.slice(100, 150)}!`);
  });
});
