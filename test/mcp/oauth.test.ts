import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { followLogin, startIssuer, type TestIssuer } from "../helpers/oidc-issuer.ts";
import { connect, startServer, textOf, type McpTestServer } from "./support.ts";

/**
 * MCP authorization (docs/mcp.md §"Authorization"): the server as an OAuth protected resource of a real OpenID
 * Connect provider (test/helpers/oidc-issuer.ts). Its metadata (RFC 9728), the challenge of every 401, and the MCP
 * SDK's own OAuth client going from no token to a working `tools/call` by discovery, dynamic client registration and
 * the issuer's login, with no key pasted and no client registered beforehand.
 */
const REDIRECT = "http://127.0.0.1/mcp-client/callback";
let issuer: TestIssuer;
let server: McpTestServer;
let origin: string;
const clients: Client[] = [];

/** A free loopback port: the issuer must know the server's origin (its resource) before the server starts. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  issuer = await startIssuer({ resource: origin });
  const identity = {
    resource: origin,
    issuers: [
      {
        issuer: issuer.issuer,
        roleClaim: "groups",
        roles: { "tai-admins": "ADMIN", "tai-users": "USER", "tai-readers": "READER" },
      },
    ],
  };
  server = await startServer({ port, env: { TAI_ANONYMOUS_ROLE: "NONE", TAI_IDENTITY: JSON.stringify(identity) } });
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(async () => {
  await server?.stop();
  await issuer?.close();
});

const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const post = (headers: Record<string, string> = {}) =>
  fetch(server.url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body: LIST });
const metadataUrl = () => `${origin}/.well-known/oauth-protected-resource/mcp`;

/** An OAuth client as an MCP host keeps one: everything in memory, the authorization URL recorded, not opened. */
class MemoryProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "tai42 MCP test client",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    scope: "openid profile offline_access tai",
  };
  clientInformation = () => this.information;
  saveClientInformation = (information: OAuthClientInformationMixed) => void (this.information = information);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

/** The SDK's client over its transport with `provider`, every request it makes (auth included) recorded. */
function sdkClient(provider: OAuthClientProvider, seen: string[]) {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    authProvider: provider,
    fetch: (url, init) => {
      seen.push(`${init?.method ?? "GET"} ${String(url).split("?")[0]}`);
      return fetch(url, init);
    },
  });
  const client = new Client({ name: "tai42-oauth-tests", version: "1.0.0" });
  clients.push(client);
  return { client, transport };
}

describe("the protected resource metadata (RFC 9728)", () => {
  it("should serve the same exact document at the root and for /mcp, to anyone, readable from any origin", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const res = await fetch(`${origin}${path}`, { headers: { origin: "https://any.example" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({
        resource: origin,
        authorization_servers: [issuer.issuer],
        bearer_methods_supported: ["header"],
        resource_name: "tai42",
      });
    }
    const preflight = await fetch(metadataUrl(), {
      method: "OPTIONS",
      headers: {
        origin: "https://any.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "mcp-protocol-version",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("mcp-protocol-version");
  });

  it("should answer GET and HEAD only, and refuse a Host a loopback server does not answer for", async () => {
    const put = await fetch(metadataUrl(), { method: "POST", body: "{}" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD");
    const head = await fetch(metadataUrl(), { method: "HEAD" });
    expect(head.status).toBe(200);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(metadataUrl(), { headers: { host: "rebound.example" } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject).end();
    });
    expect(status).toBe(403);
  });

  it("should answer 404 when no issuer is configured", async () => {
    const plain = await startServer();
    try {
      for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
        const res = await fetch(new URL(path, plain.url));
        expect(res.status).toBe(404);
        expect(await res.json()).toMatchObject({ errors: [{ extensions: { code: "NOT_FOUND" } }] });
      }
    } finally {
      await plain.stop();
    }
  });
});

describe("a 401 from /mcp", () => {
  it("should point a request with no token at the metadata, with no error (what starts a client's discovery)", async () => {
    const res = await post();
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
    expect((await res.json()).error.message).toContain("Bearer <key or access token>");
  });

  it("should answer a refused token invalid_token with its reason, and a malformed header invalid_request", async () => {
    const bad = await post({ authorization: "Bearer tai_not_a_real_key" });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${metadataUrl()}", error="invalid_token", error_description="the API key is unknown or revoked"`,
    );
    const malformed = await post({ authorization: "Token abc" });
    expect(malformed.status).toBe(401);
    expect(malformed.headers.get("www-authenticate")).toMatch(
      /^Bearer resource_metadata="[^"]+", error="invalid_request", error_description="[^"]+"$/,
    );
  });

  it("should refuse a token the issuer gave for another resource with 401 invalid_token", async () => {
    const tokens = await issuer.login("bob", { resource: "http://elsewhere.example" });
    const res = await post({ authorization: `Bearer ${tokens.access_token}` });
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toBe(
      `Bearer resource_metadata="${metadataUrl()}", error="invalid_token", ` +
        `error_description="the access token is for another resource (its aud is not ${origin})"`,
    );
    expect(challenge).not.toContain(tokens.access_token);
    expect(await res.text()).not.toContain(tokens.access_token);
  });
});

describe("a credential that cannot be checked now", () => {
  it("should answer 503 with no challenge when the token's issuer is out of reach, not 401", async () => {
    const gone = "http://127.0.0.1:9";
    const identity = { resource: origin, issuers: [{ issuer: gone, roles: { "tai-users": "USER" } }] };
    const other = await startServer({ env: { TAI_ANONYMOUS_ROLE: "NONE", TAI_IDENTITY: JSON.stringify(identity) } });
    try {
      const now = Math.floor(Date.now() / 1000);
      const token = await issuer.sign({ iss: gone, sub: "bob", aud: origin, iat: now, exp: now + 300 });
      const res = await fetch(other.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
        body: LIST,
      });
      expect(res.status).toBe(503);
      expect(res.headers.get("www-authenticate")).toBeNull();
      expect((await res.json()).error.message).toContain(`the issuer ${gone} could not be reached`);
    } finally {
      await other.stop();
    }
  });
});

describe("an MCP client following the specification", () => {
  it("should go from no token to a working tools/call by discovery, registration and the issuer's login", async () => {
    const provider = new MemoryProvider();
    const seen: string[] = [];
    const first = sdkClient(provider, seen);
    await expect(first.client.connect(first.transport)).rejects.toThrow(UnauthorizedError);
    // Discovery followed the challenge to the metadata, then the issuer's; the client registered itself there.
    const registration = String((await issuer.discovery()).registration_endpoint);
    expect(seen.slice(0, 2)).toEqual([`POST ${server.url}`, `GET ${metadataUrl()}`]);
    expect(seen).toContain(`POST ${registration}`);
    expect(provider.information?.client_id).toBeTruthy();
    const asked = provider.authorizationUrl!;
    expect(asked.origin).toBe(issuer.issuer);
    expect(asked.searchParams.get("resource")).toBe(origin);
    expect(asked.searchParams.get("client_id")).toBe(provider.information!.client_id);

    const back = await followLogin(asked.href, "bob", REDIRECT);
    await first.transport.finishAuth(back.searchParams.get("code")!);
    expect(provider.saved?.access_token).toBeTruthy();

    const second = sdkClient(provider, seen);
    await second.client.connect(second.transport);
    const names = (await second.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "kv_put"]));
    const result = (await second.client.callTool({ name: "echo", arguments: { text: "hi" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("hi");
    const run = await server.rt.runs.get(result._meta!["tai42/runId"] as string);
    expect(run).toMatchObject({ door: "mcp", callerRole: "USER", callerKeyId: `oidc:${issuer.issuer}#bob` });
  });

  it("should hold a READER's token to the tiers of its role: a read tool runs, a write tool is refused", async () => {
    const tokens = await issuer.login("rita", { resource: origin });
    const { client } = await connect(server.url, { key: tokens.access_token });
    clients.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("echo");
    expect(names).not.toContain("kv_put");
    const read = (await client.callTool({ name: "echo", arguments: { text: "r" } })) as CallToolResult;
    expect(read.isError).toBeFalsy();
    const write = (await client.callTool({ name: "kv_put", arguments: { key: "k", value: "v" } })) as CallToolResult;
    expect(write.isError).toBe(true);
    expect(write.structuredContent).toMatchObject({
      error: { kind: "PERMISSION_DENIED", message: 'role READER may not run write-tier tool "kv_put"' },
    });
  });

  it("should keep a token caller's session its own: another person's token finds no such session", async () => {
    const bob = await issuer.login("bob", { resource: origin });
    const uma = await issuer.login("uma", { resource: origin });
    const { client, transport } = await connect(server.url, { key: bob.access_token });
    clients.push(client);
    const session = transport.sessionId!;
    expect(session).toBeTruthy();
    const as = (token: string) =>
      post({
        authorization: `Bearer ${token}`,
        "mcp-session-id": session,
        "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
      });
    expect((await as(uma.access_token)).status).toBe(404);
    expect((await as(bob.access_token)).status).toBe(200);
  });
});
