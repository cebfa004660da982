import { createHash } from "node:crypto";
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from "jose";
import { ApiError } from "../errors.ts";
import type { IdentityConfig } from "./identity-config.ts";
import { introspect, type Introspected } from "./introspection.ts";
import { IssuerKeys } from "./issuer-metadata.ts";
import { KEY_CACHE_TTL_MS } from "./keys.ts";
import type { Caller } from "./roles.ts";
import { isFor, principalOf, roleOf } from "./token-claims.ts";

/** The signature algorithms a token may use: asymmetric only (no `none`, no HMAC, so no key confusion). */
export const TOKEN_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
];

const refuse = (why: string) => new ApiError("UNAUTHENTICATED", `the access token ${why}`);

/** jose's refusal as one line saying what was wrong with the token (never the token). */
function refusalOf(e: unknown, resource: string): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof errors.JWTExpired) return refuse("expired");
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === "nbf") return refuse("is not valid yet (nbf)");
    if (e.claim === "aud") return refuse(`is for another resource (its aud is not ${resource})`);
    if (e.claim === "iss") return refuse("names another issuer");
    return refuse(`has a bad "${e.claim}" claim (${e.reason})`);
  }
  if (e instanceof errors.JOSEAlgNotAllowed) return refuse("uses a signature algorithm that is not accepted");
  if (e instanceof errors.JWSSignatureVerificationFailed) return refuse("has a signature that does not verify");
  if (e instanceof errors.JWKSNoMatchingKey)
    return refuse("is signed by a key its issuer does not publish (rotated out, or never its own)");
  if (e instanceof errors.JWKSTimeout)
    return new ApiError("UNAVAILABLE", "the issuer's keys could not be fetched in time", [], { retryable: true });
  if (e instanceof errors.JOSEError) return refuse(`is malformed (${e.code})`);
  throw e;
}

/**
 * Access tokens from the configured issuers (docs/security-model.md §1.2), as callers. A JWT is verified against its
 * issuer's JWKS (asymmetric signature, `iss`, `aud` = this server's resource, `exp`/`nbf` with the configured skew,
 * `sub` present); any other token is introspected (RFC 7662) at the issuers that allow it. The role comes from the
 * issuer's claim table. Every refusal is `UNAUTHENTICATED` naming what was wrong; an issuer out of reach is
 * `UNAVAILABLE`.
 */
export class TokenVerifier {
  private readonly issuers = new Map<string, IssuerKeys>();
  /** Introspected tokens' callers (or refusals), by the token's SHA-256, for at most KEY_CACHE_TTL_MS as keys are. */
  private readonly opaque = new Map<string, { result: Caller | ApiError; at: number }>();
  /** Streams' re-checks of a token at its issuer, by the token's SHA-256, shared for KEY_CACHE_TTL_MS. */
  private readonly rechecks = new Map<string, { answer: Promise<boolean>; at: number }>();

  constructor(readonly identity: IdentityConfig) {
    for (const i of identity.issuers) this.issuers.set(i.issuer, new IssuerKeys(i, identity));
  }

  /** The issuers' identifiers, as the protected-resource metadata lists them. */
  issuerIds(): string[] {
    return [...this.issuers.keys()];
  }

  /** Whether some issuer introspects tokens (so a value that is neither a key nor a JWT may still be a token). */
  introspects(): boolean {
    return this.identity.issuers.some((i) => i.introspection);
  }

  /** Whether `token` has the shape of a JWT (three base64url parts). */
  static isJwt(token: string): boolean {
    return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
  }

  /** The caller `token` stands for; refused `UNAUTHENTICATED` when it is not a valid token for this server. */
  async verify(token: string): Promise<Caller> {
    return TokenVerifier.isJwt(token) ? this.verifyJwt(token) : this.verifyOpaque(token);
  }

  private async verifyJwt(token: string): Promise<Caller> {
    const { resource, clockSkewSeconds } = this.identity;
    let header, unverified;
    try {
      header = decodeProtectedHeader(token);
      unverified = decodeJwt(token);
    } catch {
      throw refuse("is not a well-formed JWT");
    }
    if (!header.alg || header.alg === "none") throw refuse("is unsigned (alg none)");
    if (!TOKEN_ALGORITHMS.includes(header.alg))
      throw refuse(`is signed with ${header.alg}; only asymmetric algorithms are accepted`);
    const keys = typeof unverified.iss === "string" ? this.issuers.get(unverified.iss) : undefined;
    if (!keys) throw refuse("is from an issuer this server does not trust");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await keys.keys(), {
        issuer: keys.config.issuer,
        audience: [resource, `${resource}/`],
        algorithms: TOKEN_ALGORITHMS,
        clockTolerance: clockSkewSeconds,
        requiredClaims: ["sub", "exp"],
      }));
    } catch (e) {
      throw refusalOf(e, resource);
    }
    return this.callerOf(keys, payload, token);
  }

  private async verifyOpaque(token: string): Promise<Caller> {
    const hash = createHash("sha256").update(token).digest("hex");
    const hit = this.opaque.get(hash);
    if (hit && Date.now() - hit.at < KEY_CACHE_TTL_MS) {
      if (hit.result instanceof ApiError) throw hit.result;
      return hit.result;
    }
    let result: Caller | ApiError;
    try {
      result = await this.introspected(token);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== "UNAUTHENTICATED") throw e;
      result = e;
    }
    if (this.opaque.size > 10_000) this.opaque.clear();
    this.opaque.set(hash, { result, at: Date.now() });
    if (result instanceof ApiError) throw result;
    return result;
  }

  /** The first issuer whose introspection says the token is active, its claims checked as a JWT's are. */
  private async introspected(token: string): Promise<Caller> {
    const { resource, clockSkewSeconds } = this.identity;
    const able = [...this.issuers.values()].filter((k) => k.config.introspection);
    if (!able.length) throw refuse("is neither an API key nor a JWT, and no issuer is configured to introspect it");
    for (const keys of able) {
      const answer = await introspect(keys, token);
      if (!answer?.active) continue;
      checkIntrospected(answer, keys.config.issuer, resource, clockSkewSeconds);
      return this.callerOf(keys, answer as JWTPayload, token);
    }
    throw refuse("is not active at any configured issuer (unknown, expired or revoked)");
  }

  /**
   * Whether the issuer still holds `token` active (introspection; true when it cannot say), one request per token per
   * second however many streams it holds.
   */
  private stillActive(keys: IssuerKeys, token: string): Promise<boolean> {
    if (!keys.config.introspection) return Promise.resolve(true);
    const hash = createHash("sha256").update(token).digest("hex");
    const hit = this.rechecks.get(hash);
    if (hit && Date.now() - hit.at < KEY_CACHE_TTL_MS) return hit.answer;
    const answer = introspect(keys, token).then((a) => a === null || a.active);
    if (this.rechecks.size > 10_000) this.rechecks.clear();
    this.rechecks.set(hash, { answer, at: Date.now() });
    answer.catch(() => this.rechecks.delete(hash));
    return answer;
  }

  private callerOf(keys: IssuerKeys, claims: JWTPayload, token: string): Caller {
    // jose checks only that `sub` is present: a number or an object would share another subject's principal.
    if (typeof claims.sub !== "string" || !claims.sub) throw refuse('has no "sub" claim (a non-empty string)');
    const role = roleOf(claims, keys.config);
    const principal = principalOf(keys.config.issuer, claims.sub!);
    return {
      role,
      keyName: principal,
      keyId: principal,
      subject: {
        issuer: keys.config.issuer,
        sub: claims.sub!,
        expiresAt: claims.exp! * 1000,
        active: () => this.stillActive(keys, token),
      },
    };
  }
}

/** An introspection answer held to what a JWT is held to: this issuer, this resource, a subject, in its lifetime. */
function checkIntrospected(a: Introspected, issuer: string, resource: string, skew: number): void {
  const now = Date.now() / 1000;
  if (a.iss !== undefined && a.iss !== issuer) throw refuse("names another issuer");
  if (!isFor(a.aud, resource)) throw refuse(`is for another resource (its aud is not ${resource})`);
  if (typeof a.sub !== "string" || !a.sub) throw refuse('has no "sub" claim');
  if (typeof a.exp !== "number") throw refuse('has no "exp" claim');
  if (a.exp + skew < now) throw refuse("expired");
  if (typeof a.nbf === "number" && a.nbf - skew > now) throw refuse("is not valid yet (nbf)");
}
