import { z } from "zod";
import { App } from "../../src/app.ts";
import type { IdentityInit } from "../../src/auth/identity-config.ts";
import { INTROSPECTION_CLIENT, startIssuer, type IssuerOptions, type TestIssuer } from "../helpers/oidc-issuer.ts";
import { startServer, type McpTestServer } from "../mcp/support.ts";

/** The resource (audience) the identity tests' server is: tokens are asked for it. */
export const RESOURCE = "http://tai42.test";

/** The role table every identity test configures: the groups of test/helpers/oidc-issuer.ts's ACCOUNTS. */
export const ROLE_TABLE = { "tai-admins": "ADMIN", "tai-users": "USER", "tai-readers": "READER" } as const;

/** A read tool and a write tool, so tier rules show. */
export function identityApp(): App {
  const app = new App();
  app.tool({ name: "look", description: "Reads.", input: z.object({}), tier: "read" }, async () => "seen");
  app.tool({ name: "touch", description: "Writes.", input: z.object({}), tier: "write" }, async () => "done");
  return app;
}

/** The identity configuration naming `issuers`, as TAI_IDENTITY holds it. */
export function identityEnv(issuers: TestIssuer[], more: Partial<IdentityInit> = {}): NodeJS.ProcessEnv {
  const identity: IdentityInit = {
    resource: RESOURCE,
    pollSeconds: 0.5,
    jwksRefreshSeconds: 1,
    issuers: issuers.map((i) => ({
      issuer: i.issuer,
      roles: { ...ROLE_TABLE },
      introspection: { clientId: INTROSPECTION_CLIENT.clientId, clientSecret: "!ENV TAI_TEST_OIDC_SECRET" },
    })),
    ...more,
  };
  return {
    TAI_IDENTITY: JSON.stringify(identity),
    TAI_TEST_OIDC_SECRET: INTROSPECTION_CLIENT.clientSecret,
    TAI_ANONYMOUS_ROLE: "NONE",
    TAI_DEMO: "0",
  };
}

export interface IdentityWorld {
  issuer: TestIssuer;
  server: McpTestServer;
  /** http://127.0.0.1:PORT/graphql */
  graphql: string;
  /** Logs `account` in at the issuer and returns its access token for this server. */
  token(account: string): Promise<string>;
  close(): Promise<void>;
}

/** An issuer and a server trusting it (on `identityApp`'s tools), anonymous callers refused. */
export async function identityWorld(options: Partial<IssuerOptions> = {}): Promise<IdentityWorld> {
  const issuer = await startIssuer({ resource: RESOURCE, ...options });
  const server = await startServer({ app: identityApp(), env: identityEnv([issuer]) });
  return {
    issuer,
    server,
    graphql: server.url.replace(/\/mcp$/, "/graphql"),
    token: async (account) => (await issuer.login(account)).access_token,
    async close() {
      await server.stop();
      await issuer.close();
    },
  };
}

/** A GraphQL request over HTTP with `token` as its bearer; the parsed body. */
export async function asBearer<T = Record<string, unknown>>(
  url: string,
  token: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ status: number; data?: T; errors?: { message: string; extensions?: { code?: string } }[] }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, ...((await res.json()) as object) };
}
