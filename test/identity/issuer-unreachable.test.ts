import { afterEach, describe, expect, it } from "vitest";
import { startIssuer, type TestIssuer } from "../helpers/oidc-issuer.ts";
import { startServer, type McpTestServer } from "../mcp/support.ts";
import { asBearer, identityApp, identityEnv, RESOURCE, ROLE_TABLE } from "./support.ts";

describe("an issuer out of reach", () => {
  let issuer: TestIssuer | undefined;
  let server: McpTestServer | undefined;
  afterEach(async () => {
    await server?.stop();
    await issuer?.close();
  });

  it("should answer UNAVAILABLE (retryable), not refuse the caller, and keep serving keys and the other issuer", async () => {
    issuer = await startIssuer({ resource: RESOURCE });
    const gone = "http://127.0.0.1:9";
    const env = identityEnv([issuer]);
    const identity = JSON.parse(env.TAI_IDENTITY!);
    identity.issuers.push({ issuer: gone, roles: { ...ROLE_TABLE } });
    server = await startServer({ app: identityApp(), env: { ...env, TAI_IDENTITY: JSON.stringify(identity) } });
    const graphql = server.url.replace(/\/mcp$/, "/graphql");
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: "bob", aud: RESOURCE, iat: now, exp: now + 300, groups: ["tai-users"] };

    const answer = await asBearer(graphql, await issuer.sign({ ...claims, iss: gone }), "{ viewer { role } }");
    expect(answer.errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining(`the issuer ${gone} could not be reached`),
        extensions: expect.objectContaining({ code: "UNAVAILABLE" }),
      }),
    ]);
    const fine = await asBearer(graphql, await issuer.sign({ ...claims, iss: issuer.issuer }), "{ viewer { role } }");
    expect(fine.data).toEqual({ viewer: { role: "USER" } });
    const key = await server.rt.keys.create("still", "READER");
    expect((await asBearer(graphql, key, "{ viewer { role } }")).data).toEqual({ viewer: { role: "READER" } });
  });
});
