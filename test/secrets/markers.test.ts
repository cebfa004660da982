import { describe, expect, it } from "vitest";
import {
  checkMarkerWrite,
  hasMarker,
  isServerConfigName,
  markerIssues,
  markerName,
  markersIn,
} from "../../src/secrets/markers.ts";

/** The error `f` threw, as its code, message and issues. */
function thrown(f: () => void): { code: string; message: string; issues: { path: string; message: string }[] } {
  try {
    f();
  } catch (e) {
    return e as never;
  }
  throw new Error("expected a refusal");
}

describe("!ENV markers", () => {
  it("should read the variable a marker names, trimmed, and null for anything else", () => {
    expect(markerName("!ENV API_TOKEN")).toBe("API_TOKEN");
    expect(markerName("!ENV    SPACED  ")).toBe("SPACED");
    expect(markerName("!ENVAPI")).toBeNull();
    expect(markerName("prefix !ENV X")).toBeNull();
    expect(markerName(42)).toBeNull();
    expect(markerName({ value: "!ENV X" })).toBeNull();
  });

  it("should find every marker inside nested data with its path", () => {
    const value = { auth: { token: "!ENV TOKEN" }, hosts: ["plain", "!ENV HOST"], n: 1 };
    expect(markersIn(value, "/baked")).toEqual([
      { path: "/baked/auth/token", name: "TOKEN" },
      { path: "/baked/hosts/1", name: "HOST" },
    ]);
    expect(markersIn("!ENV TOP")).toEqual([{ path: "", name: "TOP" }]);
    expect(hasMarker(value)).toBe(true);
    expect(hasMarker({ a: ["x", { b: "y" }] })).toBe(false);
  });

  it("should name a malformed variable at its path", () => {
    expect(markerIssues({ ok: "!ENV GOOD_NAME", bad: "!ENV 9lives", empty: "!ENV " }, "/x")).toEqual([
      { path: "/x/bad", message: '"!ENV" must be followed by a variable name like API_TOKEN (got "9lives")' },
      { path: "/x/empty", message: '"!ENV" must be followed by a variable name like API_TOKEN (got "")' },
    ]);
  });
});

describe("server configuration is never resolvable", () => {
  it("should cover every TAI_ variable, the database and Redis URLs", () => {
    for (const name of ["TAI_ADMIN_KEY", "TAI_", "DATABASE_URL", "REDIS_URL"])
      expect(isServerConfigName(name)).toBe(true);
    for (const name of ["API_TOKEN", "DATABASE_URL2", "MY_TAI_KEY"]) expect(isServerConfigName(name)).toBe(false);
  });

  it("should add the names TAI_ENV_DENY lists, a trailing * matching a prefix", () => {
    const deny = ["AWS_*", "GITHUB_TOKEN"];
    expect(isServerConfigName("AWS_SECRET_ACCESS_KEY", deny)).toBe(true);
    expect(isServerConfigName("GITHUB_TOKEN", deny)).toBe(true);
    expect(isServerConfigName("GITHUB_TOKEN_2", deny)).toBe(false);
    expect(isServerConfigName("AWSX", deny)).toBe(false);
  });
});

describe("checkMarkerWrite: who may store a marker", () => {
  it("should let anyone store data without markers, and an ADMIN store markers", () => {
    expect(() => checkMarkerWrite({ a: "plain" }, "/input", { admin: false, deny: [] })).not.toThrow();
    expect(() => checkMarkerWrite({ a: "!ENV API_TOKEN" }, "/input", { admin: true, deny: [] })).not.toThrow();
  });

  it("should refuse a non-ADMIN's markers as FORBIDDEN, naming each path", () => {
    const e = thrown(() => checkMarkerWrite({ a: "!ENV ONE", b: ["!ENV TWO"] }, "/input", { admin: false, deny: [] }));
    expect(e.code).toBe("FORBIDDEN");
    expect(e.issues.map((i) => i.path)).toEqual(["/input/a", "/input/b/0"]);
    expect(e.message).toContain("/input/a, /input/b/0");
  });

  it("should refuse a marker naming server configuration for everyone, an ADMIN included, naming the variable", () => {
    for (const admin of [true, false]) {
      const e = thrown(() =>
        checkMarkerWrite({ a: "!ENV TAI_ADMIN_KEY", b: "!ENV OK_NAME", c: "!ENV AWS_KEY" }, "/p", {
          admin,
          deny: ["AWS_*"],
        }),
      );
      expect(e.code).toBe("INVALID_INPUT");
      expect(e.issues.map((i) => i.path)).toEqual(["/p/a", "/p/c"]);
      expect(e.message).toBe(
        '"!ENV TAI_ADMIN_KEY", "!ENV AWS_KEY" name the server\'s own configuration, which is never resolvable',
      );
    }
  });
});
