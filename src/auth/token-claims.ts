import type { JWTPayload } from "jose";
import { ApiError } from "../errors.ts";
import type { IssuerConfig } from "./identity-config.ts";
import { ROLES, type Role } from "./roles.ts";

/** The prefix of a token caller's principal: `oidc:<issuer>#<sub>` (key ids are UUIDs, key names never hold `:`). */
export const SUBJECT_PREFIX = "oidc:";

/** The principal a token's subject is known by wherever a key id is used (docs/security-model.md §1.2). */
export function principalOf(issuer: string, sub: string): string {
  return `${SUBJECT_PREFIX}${issuer}#${sub}`;
}

/** Whether a stored caller key (a run's `callerKey`, a schedule's `callerKeyId`) is a token subject's principal. */
export function isPrincipal(key: string | null | undefined): key is string {
  return typeof key === "string" && key.startsWith(SUBJECT_PREFIX);
}

/** The value at a dotted path of the claims (`realm_access.roles`), or undefined. */
function claimAt(claims: JWTPayload, path: string): unknown {
  if (path in claims) return claims[path];
  let at: unknown = claims;
  for (const part of path.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/**
 * The role the issuer's table gives the token's claim: the highest among its values (a string, an array of strings, or
 * a space-separated string as `scope` is). A token it gives none is refused `UNAUTHENTICATED`.
 */
export function roleOf(claims: JWTPayload, issuer: IssuerConfig): Role {
  const raw = claimAt(claims, issuer.roleClaim);
  const values = Array.isArray(raw)
    ? raw.filter((v): v is string => typeof v === "string")
    : typeof raw === "string"
      ? raw.split(/\s+/)
      : [];
  // Own keys only: a value such as "constructor" or "__proto__" must not read the table's prototype.
  const roles = values
    .filter((v) => Object.hasOwn(issuer.roles, v))
    .map((v) => issuer.roles[v])
    .filter((r): r is Role => ROLES.includes(r));
  if (!roles.length)
    throw new ApiError(
      "UNAUTHENTICATED",
      `the access token's subject has no role here: its claim "${issuer.roleClaim}" names none of the values the issuer's role table maps`,
    );
  return roles.reduce((a, b) => (ROLES.indexOf(b) > ROLES.indexOf(a) ? b : a));
}

/** Whether `aud` (a string or a list) names `resource`, a trailing slash aside. */
export function isFor(aud: unknown, resource: string): boolean {
  const trim = (u: string) => u.replace(/\/+$/, "");
  const list = Array.isArray(aud) ? aud : [aud];
  return list.some((a) => typeof a === "string" && trim(a) === trim(resource));
}
