import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";

/**
 * A real OpenID Connect provider for tests (`oidc-provider`, the certified Node implementation), started on a free
 * loopback port: the people of {@link ACCOUNTS} (their `groups` go into every access token), public clients with PKCE,
 * a confidential client the server introspects with, dynamic client registration (what MCP clients use), resource
 * indicators (RFC 8707: access tokens are JWTs for the resource asked for), revocation and introspection. Consent is
 * given at once after the login, so a login is its one form (`login` below does it over HTTP, a browser through the
 * page).
 */

/** The test's people and their groups (the claim the server maps to roles). */
export const ACCOUNTS: Record<string, string[]> = {
  alice: ["tai-admins"],
  bob: ["tai-users"],
  rita: ["tai-readers"],
  uma: ["tai-users"],
  nobody: ["elsewhere"],
};

/** The confidential client the server introspects tokens with (`identity.issuers[].introspection`). */
export const INTROSPECTION_CLIENT = { clientId: "tai-server", clientSecret: "tai-server-secret-for-tests" };
/** The public client tests log in through (`login`); any loopback redirect URI. */
export const TEST_CLIENT = "tai-test";
export const TEST_REDIRECT = "http://127.0.0.1/callback";

export interface IssuerOptions {
  /** The resource (audience) an access token is for when a request names none. */
  resource: string;
  /** Redirect URIs of the public client `tai-dashboard` (the dashboard's sign-in). */
  dashboardRedirects?: string[];
  /** Seconds an access token lives. @default 300 */
  accessTokenSeconds?: number;
  /**
   * `jwt` (default): access tokens are JWTs, verified by the server against the JWKS (the provider can neither
   * introspect nor revoke them). `opaque`: random strings the server introspects (RFC 7662), revocable.
   */
  format?: "jwt" | "opaque";
}

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  expires_in: number;
  token_type: string;
}

export interface TestIssuer {
  /** The issuer identifier (`iss`): `http://127.0.0.1:<port>`. */
  issuer: string;
  /** Logs `account` in by the authorization code flow with PKCE (the provider's login form), redeeming the code. */
  login(account: string, options?: { resource?: string; clientId?: string; redirectUri?: string }): Promise<Tokens>;
  /** Revokes a token at the provider's revocation endpoint (as the client it was issued to). */
  revoke(token: string, clientId?: string): Promise<void>;
  /** Signs `claims` with the provider's current signing key (to forge a token only one claim of is wrong). */
  sign(claims: JWTPayload, header?: { alg?: string; kid?: string }): Promise<string>;
  /** Replaces the signing key: the old one leaves the JWKS, so its tokens no longer verify. Returns the old signer. */
  rotate(): Promise<(claims: JWTPayload) => Promise<string>>;
  /** The provider's metadata. */
  discovery(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

interface SigningKey {
  privateKey: CryptoKey;
  jwk: JWK;
  kid: string;
}

async function signingKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = randomUUID();
  return { privateKey, kid, jwk: { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" } };
}

function configuration(options: IssuerOptions, key: SigningKey): Configuration {
  const ttl = options.accessTokenSeconds ?? 300;
  const resourceServer = (resource: string) => ({
    scope: "tai",
    audience: resource,
    accessTokenTTL: ttl,
    accessTokenFormat: options.format ?? "jwt",
    ...(options.format === "opaque" ? {} : { jwt: { sign: { alg: "RS256" } } }),
  });
  return {
    jwks: { keys: [key.jwk] },
    cookies: { keys: ["tai42-test-cookie-key"] },
    clients: [
      {
        client_id: TEST_CLIENT,
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        redirect_uris: [TEST_REDIRECT],
      },
      {
        client_id: "tai-dashboard",
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        redirect_uris: options.dashboardRedirects ?? ["http://127.0.0.1/dashboard/"],
        post_logout_redirect_uris: options.dashboardRedirects ?? ["http://127.0.0.1/dashboard/"],
      },
      {
        client_id: INTROSPECTION_CLIENT.clientId,
        client_secret: INTROSPECTION_CLIENT.clientSecret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
      },
    ],
    findAccount: (_ctx, id) =>
      ACCOUNTS[id] ? { accountId: id, claims: () => ({ sub: id, name: id, groups: ACCOUNTS[id] }) } : undefined,
    claims: { openid: ["sub"], profile: ["name", "groups"] },
    scopes: ["openid", "profile", "offline_access", "tai"],
    pkce: { required: () => true },
    ttl: {
      AccessToken: ttl,
      IdToken: 3600,
      AuthorizationCode: 60,
      RefreshToken: 3600,
      Session: 3600,
      Interaction: 600,
      Grant: 3600,
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    extraTokenClaims: async (_ctx, token) => {
      const id = (token as { accountId?: string }).accountId;
      return id && ACCOUNTS[id] ? { groups: ACCOUNTS[id] } : undefined;
    },
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => grantOf(ctx, options.resource),
    features: {
      devInteractions: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async () => true },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      registration: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => resourceServer(resource),
      },
    },
  } as Configuration;
}

/** Consent given at once after the login: every scope asked for, for the resource asked for (or the default). */
async function grantOf(ctx: KoaContextWithOIDC, defaultResource: string) {
  const { oidc } = ctx;
  const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(oidc.client!.clientId);
  if (grantId) {
    const found = await oidc.provider.Grant.find(grantId);
    if (found) return found;
  }
  if (!oidc.session?.accountId) return undefined;
  const grant = new oidc.provider.Grant({ clientId: oidc.client!.clientId, accountId: oidc.session.accountId });
  grant.addOIDCScope("openid profile offline_access");
  const asked = oidc.params?.resource;
  for (const resource of asked ? [asked].flat() : [defaultResource]) grant.addResourceScope(String(resource), "tai");
  await grant.save();
  return grant;
}

/** Starts the provider on a free loopback port. */
export async function startIssuer(options: IssuerOptions): Promise<TestIssuer> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, r) => r.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  let key = await signingKey();
  const mount = () => {
    const provider = new Provider(issuer, configuration(options, key));
    provider.on("server_error", (_ctx, e) => console.error("oidc-provider:", e));
    handler = provider.callback() as never;
  };
  mount();
  const signWith = (k: SigningKey) => (claims: JWTPayload, header?: { alg?: string; kid?: string }) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: header?.alg ?? "RS256", kid: header?.kid ?? k.kid, typ: "at+jwt" })
      .sign(k.privateKey);
  return {
    issuer,
    login: (account, o) => login(issuer, account, o ?? {}),
    revoke: async (token, clientId = TEST_CLIENT) => {
      const res = await fetch(`${issuer}/token/revocation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: clientId }),
      });
      if (!res.ok) throw new Error(`revocation answered ${res.status}: ${await res.text()}`);
    },
    sign: (claims, header) => signWith(key)(claims, header),
    rotate: async () => {
      const old = key;
      key = await signingKey();
      mount();
      return signWith(old);
    },
    discovery: async () => (await fetch(`${issuer}/.well-known/openid-configuration`)).json(),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A minimal cookie jar over fetch with manual redirects: what a browser keeps between the login's pages. */
function browserLike() {
  const jar = new Map<string, string>();
  return async (url: string, init: RequestInit = {}): Promise<Response> => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  };
}

/**
 * Follows an authorization URL as a browser would, filling the provider's login form with `account`, until the
 * redirect to `redirectUri`; resolves with that redirect's URL (its `code` and `state`).
 */
export async function followLogin(authorizationUrl: string, account: string, redirectUri: string): Promise<URL> {
  const go = browserLike();
  let res = await go(authorizationUrl);
  for (let step = 0; step < 12; step++) {
    const location = res.headers.get("location");
    if (location) {
      const next = new URL(location, res.url || authorizationUrl);
      if (next.href.startsWith(redirectUri)) return next;
      res = await go(next.href);
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the login stopped at ${res.status}: ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1] ?? "login";
    const form: Record<string, string> = prompt === "login" ? { prompt, login: account, password: "any" } : { prompt };
    res = await go(new URL(action, authorizationUrl).href, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form),
    });
  }
  throw new Error("the login did not reach the redirect URI");
}

async function login(
  issuer: string,
  account: string,
  o: { resource?: string; clientId?: string; redirectUri?: string },
): Promise<Tokens> {
  const clientId = o.clientId ?? TEST_CLIENT;
  const redirectUri = o.redirectUri ?? TEST_REDIRECT;
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomBytes(8).toString("hex");
  const auth = new URL(`${issuer}/auth`);
  auth.search = new URLSearchParams({
    client_id: clientId,
    response_type: "code",
    redirect_uri: redirectUri,
    scope: "openid profile offline_access tai",
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    prompt: "consent",
    ...(o.resource ? { resource: o.resource } : {}),
  }).toString();
  const back = await followLogin(auth.href, account, redirectUri);
  if (back.searchParams.get("state") !== state) throw new Error(`the login came back with ${back.href}`);
  const res = await fetch(`${issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: back.searchParams.get("code") ?? "",
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
      ...(o.resource ? { resource: o.resource } : {}),
    }),
  });
  const body = (await res.json()) as Tokens & { error?: string; error_description?: string };
  if (!res.ok) throw new Error(`the token endpoint answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}
