import * as oauth from "oauth4webapi";
import type { SignInIssuer } from "./identity.ts";
import { pendingSignIn, storePending, type SignedIn } from "./tokens.ts";

/**
 * The authorization code flow with PKCE (oauth4webapi) against one issuer of identity.json, as a public client: the
 * verifier and state wait in sessionStorage while the browser is at the issuer, the code is exchanged here, and every
 * token is asked for `resource` (RFC 8707), this server.
 */

/** Where the issuer sends the browser back: the dashboard itself (a redirect URI registered for its client). */
export const redirectUri = (): string => new URL("/dashboard/", location.origin).href;

/** An issuer served over plain http (a loopback test or development provider) is the operator's own choice. */
const insecure = (issuer: string) => ({ [oauth.allowInsecureRequests]: new URL(issuer).protocol === "http:" });

const discovered = new Map<string, Promise<oauth.AuthorizationServer>>();

/** The issuer's metadata (OpenID Connect discovery), fetched once per page. */
export function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  let as = discovered.get(issuer);
  if (!as) {
    const url = new URL(issuer);
    as = oauth
      .discoveryRequest(url, { algorithm: "oidc", ...insecure(issuer) })
      .then((res) => oauth.processDiscoveryResponse(url, res));
    as.catch(() => discovered.delete(issuer));
    discovered.set(issuer, as);
  }
  return as;
}

/** Leaves for the issuer's authorization endpoint; resolves never (the page goes). */
export async function startSignIn(issuer: SignInIssuer): Promise<void> {
  const as = await discover(issuer.issuer);
  if (!as.authorization_endpoint) throw new Error(`${issuer.issuer} names no authorization endpoint`);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: issuer.clientId,
    response_type: "code",
    redirect_uri: redirectUri(),
    scope: issuer.scope,
    resource: issuer.resource,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
  }).toString();
  storePending({ issuer: issuer.issuer, verifier, state, hash: location.hash });
  location.assign(url.href);
}

/** The tokens of a token endpoint response, timed from `now`. */
function tokensOf(issuer: string, r: oauth.TokenEndpointResponse, previous?: SignedIn): SignedIn {
  const now = Date.now();
  return {
    issuer,
    accessToken: r.access_token,
    // An issuer that does not rotate refresh tokens answers a refresh without one: the old one stays good.
    refreshToken: r.refresh_token ?? previous?.refreshToken,
    idToken: r.id_token ?? previous?.idToken,
    issuedAt: now,
    expiresAt: typeof r.expires_in === "number" ? now + r.expires_in * 1000 : null,
  };
}

/**
 * The way back from the issuer: when this page's URL carries the answer to a sign-in under way (`?code`/`?error` and
 * `state`), exchanges the code for tokens and cleans the URL. Null when there is no answer to read; throws with the
 * issuer's or the check's reason when the sign-in failed.
 */
export async function finishSignIn(issuers: readonly SignInIssuer[]): Promise<SignedIn | null> {
  const here = new URL(location.href);
  const pending = pendingSignIn();
  if (!here.searchParams.has("state") && !here.searchParams.has("code")) return null;
  // The URL is cleaned whatever the answer: a code is good once, and a reload must not try it again.
  history.replaceState(null, "", `${here.pathname}${pending?.hash ?? here.hash}`);
  storePending(null);
  const issuer = issuers.find((i) => i.issuer === pending?.issuer);
  if (!pending || !issuer) throw new Error("the sign-in answer came back to a tab that did not start it");
  const as = await discover(issuer.issuer);
  const client: oauth.Client = { client_id: issuer.clientId };
  const params = oauth.validateAuthResponse(as, client, here, pending.state);
  const res = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri(),
    pending.verifier,
    { additionalParameters: { resource: issuer.resource }, ...insecure(issuer.issuer) },
  );
  return tokensOf(issuer.issuer, await oauth.processAuthorizationCodeResponse(as, client, res));
}

/** New tokens for `tokens` by its refresh token (the issuer may rotate it). */
export async function refreshTokens(issuer: SignInIssuer, tokens: SignedIn): Promise<SignedIn> {
  if (!tokens.refreshToken) throw new Error("the issuer gave no refresh token");
  const as = await discover(issuer.issuer);
  const client: oauth.Client = { client_id: issuer.clientId };
  const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refreshToken, {
    additionalParameters: { resource: issuer.resource },
    ...insecure(issuer.issuer),
  });
  return tokensOf(issuer.issuer, await oauth.processRefreshTokenResponse(as, client, res), tokens);
}

/**
 * Where signing out goes: the issuer's end_session_endpoint (RP-initiated logout, back to the dashboard) when its
 * discovery offers one; null when it offers none (the tokens are only dropped).
 */
export async function endSessionUrl(issuer: SignInIssuer, tokens: SignedIn): Promise<string | null> {
  const as = await discover(issuer.issuer).catch(() => null);
  if (!as?.end_session_endpoint) return null;
  const url = new URL(as.end_session_endpoint);
  url.searchParams.set("client_id", issuer.clientId);
  url.searchParams.set("post_logout_redirect_uri", redirectUri());
  if (tokens.idToken) url.searchParams.set("id_token_hint", tokens.idToken);
  return url.href;
}

/** A sign-in failure as one sentence (oauth4webapi's errors carry the issuer's `error_description`). */
export function reasonOf(e: unknown): string {
  if (e instanceof oauth.ResponseBodyError) return `${e.error}${e.error_description ? `: ${e.error_description}` : ""}`;
  if (e instanceof oauth.AuthorizationResponseError)
    return `${e.error}${e.error_description ? `: ${e.error_description}` : ""}`;
  return (e as Error)?.message ?? String(e);
}
