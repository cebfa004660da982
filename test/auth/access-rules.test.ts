import { describe, expect, it } from "vitest";
import { checkDispatchBounds } from "../../src/auth/dispatch-bounds.ts";
import { isOwnerOrAdmin, mayAnswer, mayUseThread, requireAdmin, threadOwnerKey } from "../../src/auth/ownership.ts";
import { lowerRole, storedRole } from "../../src/auth/role-order.ts";
import { anonymousCaller, callerOf, defaultAnonymousRole, isAnonymousRole, type Role } from "../../src/auth/roles.ts";
import { ApiError } from "../../src/errors.ts";

/** docs/security-model.md §1–§2, written out independently of src/auth/ so that a bug there shows. */

const alice = callerOf("USER", "alice", "key-alice");
const bob = callerOf("USER", "bob", "key-bob");
const anon = callerOf("USER");
const admin = callerOf("ADMIN", "root", "key-root");
const reader = callerOf("READER", "rita", "key-rita");

function thrown(f: () => unknown): Pick<ApiError, "code" | "message" | "issues"> | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    const { code, message, issues } = e as ApiError;
    return { code, message, issues };
  }
  return undefined;
}

describe("lowering a role", () => {
  const LOWER: [Role, Role, Role][] = [
    ["READER", "USER", "READER"],
    ["USER", "READER", "READER"],
    ["ADMIN", "USER", "USER"],
    ["USER", "ADMIN", "USER"],
    ["ADMIN", "ADMIN", "ADMIN"],
    ["READER", "ADMIN", "READER"],
  ];
  it.each(LOWER)("should give the lower of %s and %s: %s", (a, b, lower) => {
    expect(lowerRole(a, b)).toBe(lower);
  });

  it("should read a stored role that is not a role as READER, the least privileged", () => {
    expect(["ADMIN", "USER", "READER", "ROOT", "", null, undefined].map(storedRole)).toEqual([
      "ADMIN",
      "USER",
      "READER",
      "READER",
      "READER",
      "READER",
      "READER",
    ]);
  });
});

describe("the anonymous role", () => {
  it("should default to USER on a loopback bind and to NONE (no caller at all) elsewhere", () => {
    expect(defaultAnonymousRole(true)).toBe("USER");
    expect(defaultAnonymousRole(false)).toBe("NONE");
    expect(anonymousCaller("NONE")).toBeNull();
    expect(anonymousCaller("READER")).toEqual({ role: "READER", keyName: null, keyId: null });
  });

  it("should accept NONE and the three roles, in capitals only", () => {
    expect(["NONE", "READER", "USER", "ADMIN", "none", "ROOT", 1].map(isAnonymousRole)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe("owner or admin", () => {
  const aliceRun = { callerKeyId: "key-alice", callerKey: "alice" };
  const anonRun = { callerKeyId: null, callerKey: null };

  it("should let the starter (by key id, or by name where no id was recorded) and an ADMIN use a run, and nobody else", () => {
    expect([alice, bob, anon, admin].map((c) => isOwnerOrAdmin(c, aliceRun))).toEqual([true, false, false, true]);
    expect([alice, bob].map((c) => isOwnerOrAdmin(c, { callerKey: "alice" }))).toEqual([true, false]);
  });

  it("should let an anonymous caller use the anonymous runs only", () => {
    expect([anon, alice, admin].map((c) => isOwnerOrAdmin(c, anonRun))).toEqual([true, false, true]);
    expect(isOwnerOrAdmin(anon, { callerKey: "alice" })).toBe(false);
  });

  it("should let a thread's owner, an ADMIN, or anyone when no owner is recorded use a thread", () => {
    expect([alice, bob, anon, admin].map((c) => mayUseThread(c, threadOwnerKey(alice)))).toEqual([
      true,
      false,
      false,
      true,
    ]);
    expect([alice, anon].map((c) => mayUseThread(c, threadOwnerKey(anon)))).toEqual([false, true]);
    expect(mayUseThread(bob, null)).toBe(true);
  });

  it("should let only an ADMIN past requireAdmin, saying what the caller is", () => {
    expect(requireAdmin(admin, "write skills")).toBe(admin);
    expect(thrown(() => requireAdmin(alice, "write skills"))).toEqual({
      code: "FORBIDDEN",
      message: "only an ADMIN may write skills (you are USER)",
      issues: [],
    });
  });

  it("should let a READER answer only a question addressed to it as the caller of a run it started", () => {
    const ritaRun = { callerKeyId: "key-rita", callerKey: "rita" };
    expect(mayAnswer(reader, "caller", ritaRun)).toBe(true);
    expect(mayAnswer(reader, "user", ritaRun)).toBe(false);
    expect(mayAnswer(reader, "caller", aliceRun)).toBe(false);
    expect(mayAnswer(alice, "user", aliceRun)).toBe(true);
    expect(mayAnswer(admin, "user", aliceRun)).toBe(true);
  });
});

describe("dispatch bounds", () => {
  it("should pass options within bounds, and absent or null ones", () => {
    for (const options of [
      {},
      { timeoutSeconds: null, idempotencyKey: null },
      { timeoutSeconds: 0.001, idempotencyKey: "k" },
      { idempotencyKey: "k".repeat(200) },
    ])
      expect(thrown(() => checkDispatchBounds(options))).toBeUndefined();
  });

  it("should name the option under the door's own path, the timeout first", () => {
    expect(thrown(() => checkDispatchBounds({ timeoutSeconds: 0, idempotencyKey: "" }, "/input"))).toEqual({
      code: "BAD_USER_INPUT",
      message: "timeoutSeconds must be > 0",
      issues: [{ path: "/input/timeoutSeconds", message: "must be > 0" }],
    });
    expect(thrown(() => checkDispatchBounds({ idempotencyKey: "k".repeat(201) }))).toEqual({
      code: "BAD_USER_INPUT",
      message: "idempotencyKey must be 1 to 200 characters",
      issues: [{ path: "/idempotencyKey", message: "must be 1 to 200 characters" }],
    });
  });
});
