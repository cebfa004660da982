import { keyRefusalMessage } from "../auth/keys.ts";
import { anonymousCaller, type Caller } from "../auth/roles.ts";
import { ApiError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";

/**
 * Resolves who is calling from an `Authorization` value ("Bearer <key>"): a valid key's
 * caller; the anonymous role when absent (null when that role is NONE); UNAUTHENTICATED
 * for a malformed, unknown, revoked or expired key — a bad key never falls back to anonymous.
 */
export async function authenticate(rt: Runtime, authorization: string | null | undefined): Promise<Caller | null> {
  if (authorization === undefined || authorization === null || authorization === "") {
    return anonymousCaller(rt.config.anonymousRole);
  }
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match) throw new ApiError("UNAUTHENTICATED", 'the authorization value must be "Bearer <key>"');
  const found = await rt.keys.identify(match[1]);
  if ("refused" in found) throw new ApiError("UNAUTHENTICATED", keyRefusalMessage(found));
  return found;
}
