import { anonymousCaller, type Caller } from "../auth/roles.ts";
import { TokenVerifier } from "../auth/token-verifier.ts";
import { ApiError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";

/**
 * Resolves who is calling from an `Authorization` value ("Bearer <key or access token>"): a valid key's caller, or,
 * where issuers are configured (docs/security-model.md §1.2), a valid access token's subject; the anonymous role when
 * absent (null when that role is NONE); UNAUTHENTICATED for a malformed, unknown, expired or revoked one — a bad
 * credential never falls back to anonymous. A JWT is always taken for a token; any other value is looked up as a key
 * first, then introspected.
 */
export async function authenticate(rt: Runtime, authorization: string | null | undefined): Promise<Caller | null> {
  if (authorization === undefined || authorization === null || authorization === "") {
    return anonymousCaller(rt.config.anonymousRole);
  }
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match)
    throw new ApiError(
      "UNAUTHENTICATED",
      `the authorization value must be "Bearer <${rt.tokens ? "key or access token" : "key"}>"`,
    );
  const value = match[1];
  if (rt.tokens && TokenVerifier.isJwt(value)) return rt.tokens.verify(value);
  const caller = await rt.keys.verify(value);
  if (caller) return caller;
  if (rt.tokens && rt.tokens.introspects()) return rt.tokens.verify(value);
  throw new ApiError("UNAUTHENTICATED", "the API key is unknown or revoked");
}
