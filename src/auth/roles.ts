/** The roles a caller can hold. `NONE` is an anonymous caller with no access. */
export const ROLES = ["READER", "USER", "ADMIN"] as const;
export type Role = (typeof ROLES)[number];
export type AnonymousRole = Role | "NONE";

/** Tool permission tiers. */
export const TIERS = ["read", "write", "fenced", "secret"] as const;
export type Tier = (typeof TIERS)[number];

/** Who is calling, as every door passes it to the chokepoint. */
export interface Caller {
  role: Role;
  /** The API key's name; null for an anonymous caller. */
  keyName: string | null;
  /** The API key's id; null for an anonymous caller. */
  keyId: string | null;
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** A caller for trusted in-process use (tests, the CLI with an admin key). */
export function callerOf(role: Role, keyName: string | null = null, keyId: string | null = null): Caller {
  return { role, keyName, keyId };
}
