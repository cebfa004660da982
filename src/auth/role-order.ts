import { isRole, ROLES, type Role } from "./roles.ts";

/** A role's rank: its place in {@link ROLES}, least privileged first. */
function rank(role: Role): number {
  return ROLES.indexOf(role);
}

/**
 * The less privileged of two roles. A resume or a fork of an agent run goes on with the
 * lower of the resumer's role and the run's, never gaining rights (docs/security-model.md §1).
 */
export function lowerRole(a: Role, b: Role): Role {
  return rank(a) <= rank(b) ? a : b;
}

/**
 * A role as stored on a record; one that is not a role (never written, but read defensively) counts as the least
 * privileged.
 */
export function storedRole(value: string | null | undefined): Role {
  return isRole(value) ? value : ROLES[0];
}
