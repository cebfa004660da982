import type { Role, Tier } from "./roles.ts";

/**
 * The tier matrix: the only place a role is compared with a tier.
 *
 * | role   | read | write | fenced | secret |
 * |--------|------|-------|--------|--------|
 * | READER | yes  | no    | no     | no     |
 * | USER   | yes  | yes   | no     | no     |
 * | ADMIN  | yes  | yes   | yes    | yes    |
 */
const MATRIX: Record<Role, readonly Tier[]> = {
  READER: ["read"],
  USER: ["read", "write"],
  ADMIN: ["read", "write", "fenced", "secret"],
};

/** Whether `role` may run a tool of `tier`. */
export function mayRun(role: Role, tier: Tier): boolean {
  return MATRIX[role].includes(tier);
}

/** Whether `role` may author a preset over a base of `tier` (fenced and secret: admin only). */
export function mayAuthorOver(role: Role, tier: Tier): boolean {
  return tier === "fenced" || tier === "secret" ? role === "ADMIN" : true;
}

/** Whether `role` may manage keys, manifests and other platform configuration. */
export function isAdmin(role: Role): boolean {
  return role === "ADMIN";
}

/** Whether `role` may write presets at all (every role above READER; over which tiers: {@link mayAuthorOver}). */
export function mayWritePresets(role: Role): boolean {
  return role !== "READER";
}

/**
 * Whether `role` answers interactions in general (every role above READER; a READER only its own runs' questions to it,
 * `auth/ownership.ts`).
 */
export function answersInteractions(role: Role): boolean {
  return role !== "READER";
}

/** Tiers whose inputs and outputs are never persisted or published. */
export function isRedacted(tier: Tier): boolean {
  return tier === "secret";
}

export const REDACTED = "[redacted]";
