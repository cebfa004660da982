import { afterEach, describe, expect, it } from "vitest";
import { collect, RUN_EVENTS, until, wsClient } from "../graphql/support.ts";
import { startIssuer, type TestIssuer } from "../helpers/oidc-issuer.ts";
import { startServer, type McpTestServer } from "../mcp/support.ts";
import { identityApp, identityEnv, RESOURCE } from "./support.ts";

/**
 * Review finding (issue 31): a token's stream ends at the token's expiry itself, not at the next poll: with
 * `pollSeconds` an hour, a stream opened with a token that expires in 2 s would otherwise outlive it by an hour.
 */
describe("a token's stream under a long poll interval", () => {
  let issuer: TestIssuer | undefined;
  let server: McpTestServer | undefined;
  const stops: (() => unknown)[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
    await server?.stop();
    await issuer?.close();
  });

  it("should end a graphql-ws stream when its JWT expires, though the next poll is an hour away", async () => {
    issuer = await startIssuer({ resource: RESOURCE });
    server = await startServer({ app: identityApp(), env: identityEnv([issuer], { pollSeconds: 3600 }) });
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.sign({
      iss: issuer.issuer,
      sub: "bob",
      aud: RESOURCE,
      iat: now,
      exp: now + 2,
      groups: ["tai-users"],
    });
    const client = wsClient(server.url.replace(/\/mcp$/, "/graphql"), {
      connectionParams: { authorization: `Bearer ${token}` },
    });
    stops.push(() => client.dispose());
    const socket = collect(client, RUN_EVENTS);
    await until("the subscription to listen", () => server!.rt.bus.listenerCount("runEvent") === 1);
    await socket.waitForEnd(8_000);
    expect(socket.errors).toEqual([
      expect.objectContaining({ code: 4403, reason: "Forbidden: the access token expired" }),
    ]);
  }, 20_000);
});
