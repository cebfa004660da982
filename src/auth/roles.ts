import type { RateLimit } from "../limits/limits.ts";
/** The roles a caller can hold, least privileged first. */
export const ROLES = ["READER", "USER", "ADMIN"] as const;
export type Role = (typeof ROLES)[number];

/** What `TAI_ANONYMOUS_ROLE` may name: a role, or `NONE` (an anonymous caller with no access). */
export const ANONYMOUS_ROLES = ["NONE", ...ROLES] as const;
export type AnonymousRole = (typeof ANONYMOUS_ROLES)[number];

/**
 * The anonymous role when `TAI_ANONYMOUS_ROLE` is not set (docs/security-model.md §1): `USER` on a loopback bind,
 * `NONE` otherwise.
 */
export function defaultAnonymousRole(loopback: boolean): AnonymousRole {
  return loopback ? "USER" : "NONE";
}

export function isAnonymousRole(value: unknown): value is AnonymousRole {
  return typeof value === "string" && (ANONYMOUS_ROLES as readonly string[]).includes(value);
}

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
  /** The key's own rate over every dispatch it makes (docs/flow-control.md §2); absent: none. */
  rate?: RateLimit;
  /**
   * An access token's subject (docs/security-model.md §1.2); absent for a key or an anonymous caller. Its `keyId` and
   * `keyName` are then both its principal `oidc:<issuer>#<sub>`.
   */
  subject?: TokenSubject;
}

/** Who an access token stands for, and how long for. */
export interface TokenSubject {
  issuer: string;
  sub: string;
  /** When the token expires (ms since the epoch). */
  expiresAt: number;
  /** Asks the issuer whether the token is still active (introspection); true when the issuer cannot say. */
  active(): Promise<boolean>;
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** The caller an anonymous request stands for under `role`: null when that role is `NONE` (no access). */
export function anonymousCaller(role: AnonymousRole): Caller | null {
  return role === "NONE" ? null : { role, keyName: null, keyId: null };
}

/** A caller for trusted in-process use (tests, the CLI with an admin key). */
export function callerOf(role: Role, keyName: string | null = null, keyId: string | null = null): Caller {
  return { role, keyName, keyId };
}
