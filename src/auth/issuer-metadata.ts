import { createRemoteJWKSet, type JWTVerifyGetKey } from "jose";
import { ApiError } from "../errors.ts";
import type { IdentityConfig, IssuerConfig } from "./identity-config.ts";

/** What the server reads of an issuer's metadata (OpenID Connect Discovery, or RFC 8414). */
export interface IssuerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
}

/** How long a failed discovery is remembered before the next request tries again. */
const RETRY_AFTER_FAILURE_MS = 5_000;
const FETCH_TIMEOUT_MS = 5_000;

/**
 * One configured issuer's metadata and signing keys, fetched on first use. The JWKS is jose's remote key set: cached
 * for `jwksRefreshSeconds` at most, fetched again at once for a key id it lacks (a rotation), no more than once per
 * cooldown. An issuer out of reach answers `UNAVAILABLE` (retryable), never a refusal of the caller.
 */
export class IssuerKeys {
  private metadata: Promise<IssuerMetadata> | null = null;
  private failedAt = 0;
  private jwks: JWTVerifyGetKey | null = null;

  constructor(
    readonly config: IssuerConfig,
    private readonly identity: Pick<IdentityConfig, "jwksRefreshSeconds">,
  ) {}

  /** The issuer's metadata (fetched once; a failure is tried again after a few seconds). */
  async meta(): Promise<IssuerMetadata> {
    if (this.metadata === null || (this.failedAt && Date.now() - this.failedAt > RETRY_AFTER_FAILURE_MS)) {
      this.failedAt = 0;
      this.metadata = discover(this.config.issuer).catch((e: Error) => {
        this.failedAt = Date.now();
        throw e;
      });
    }
    return this.metadata;
  }

  /** The key set tokens are verified against. */
  async keys(): Promise<JWTVerifyGetKey> {
    if (this.jwks) return this.jwks;
    const meta = await this.meta();
    if (!meta.jwks_uri)
      throw new ApiError("UNAVAILABLE", `the issuer ${this.config.issuer} publishes no jwks_uri to verify tokens with`);
    const refresh = this.identity.jwksRefreshSeconds * 1000;
    this.jwks = createRemoteJWKSet(new URL(meta.jwks_uri), {
      cacheMaxAge: refresh,
      cooldownDuration: Math.min(30_000, refresh),
      timeoutDuration: FETCH_TIMEOUT_MS,
    });
    return this.jwks;
  }
}

/** The metadata at the issuer's well-known addresses; its `issuer` must be the one configured. */
async function discover(issuer: string): Promise<IssuerMetadata> {
  const base = issuer.replace(/\/+$/, "");
  let lastError = "";
  for (const path of ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"]) {
    try {
      const res = await fetch(base + path, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!res.ok) {
        lastError = `${path} answered ${res.status}`;
        continue;
      }
      const meta = (await res.json()) as IssuerMetadata;
      if (meta.issuer !== issuer)
        throw new ApiError("UNAVAILABLE", `the issuer ${issuer}'s metadata names another issuer (${meta.issuer})`);
      return meta;
    } catch (e) {
      if (e instanceof ApiError) throw e;
      lastError = (e as Error).message;
    }
  }
  throw new ApiError(
    "UNAVAILABLE",
    `the issuer ${issuer} could not be reached to verify the token (${lastError})`,
    [],
    {
      retryable: true,
      retryAfterSeconds: RETRY_AFTER_FAILURE_MS / 1000,
    },
  );
}
