import { ApiError } from "../errors.ts";
import type { IssuerConfig } from "./identity-config.ts";
import type { IssuerKeys } from "./issuer-metadata.ts";

/** What an introspection answer holds that the server reads (RFC 7662 §2.2). */
export interface Introspected {
  active: boolean;
  sub?: string;
  aud?: string | string[];
  iss?: string;
  exp?: number;
  nbf?: number;
  [claim: string]: unknown;
}

/**
 * Asks the issuer whether `token` is active (RFC 7662), as its confidential client (HTTP Basic). Null when the issuer
 * cannot say (it refuses to introspect that kind of token, as some do for JWT access tokens); an issuer out of reach
 * is `UNAVAILABLE`.
 */
export async function introspect(keys: IssuerKeys, token: string): Promise<Introspected | null> {
  const client = keys.config.introspection as NonNullable<IssuerConfig["introspection"]>;
  const meta = await keys.meta();
  if (!meta.introspection_endpoint) return null;
  const basic = Buffer.from(
    `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret())}`,
  ).toString("base64");
  let res: Response;
  try {
    res = await fetch(meta.introspection_endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
        authorization: `Basic ${basic}`,
      },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }),
      signal: AbortSignal.timeout(5_000),
    });
  } catch (e) {
    const why = (e as Error).name === "TimeoutError" ? "it did not answer within 5 s" : (e as Error).message;
    throw new ApiError(
      "UNAVAILABLE",
      `the issuer ${keys.config.issuer} could not be reached to introspect the token (${why})`,
      [],
      {
        retryable: true,
        retryAfterSeconds: 1,
      },
    );
  }
  if (res.status === 400) return null;
  if (!res.ok)
    throw new ApiError("UNAVAILABLE", `the issuer ${keys.config.issuer}'s introspection answered ${res.status}`, [], {
      retryable: true,
      retryAfterSeconds: 1,
    });
  const body = (await res.json()) as Introspected;
  return typeof body.active === "boolean" ? body : null;
}
