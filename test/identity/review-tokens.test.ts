import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asBearer, identityWorld, RESOURCE, type IdentityWorld } from "./support.ts";

const VIEWER = /* GraphQL */ `
  query {
    viewer {
      role
      keyName
    }
  }
`;
const DISPATCH = /* GraphQL */ `
  mutation {
    dispatch(input: { tool: "touch", input: {} }) {
      status
    }
  }
`;

const now = () => Math.floor(Date.now() / 1000);

/**
 * Review findings (issue 31): a signed token whose `sub` is not a non-empty string, or whose role claim names a value
 * that only the role table's prototype holds (`constructor`, `__proto__`, `toString`), is refused, and nothing stored.
 */
describe("a signed access token with an odd subject or role value", () => {
  let w: IdentityWorld;
  const claims = (more: Record<string, unknown>) => ({
    iss: w.issuer.issuer,
    sub: "bob",
    aud: RESOURCE,
    iat: now(),
    exp: now() + 300,
    groups: ["tai-users"],
    ...more,
  });
  const refused = async (token: string, message: RegExp) => {
    for (const query of [VIEWER, DISPATCH]) {
      const answer = await asBearer(w.graphql, token, query);
      expect(answer.data ?? null).toBeNull();
      expect(answer.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(message),
          extensions: expect.objectContaining({ code: "UNAUTHENTICATED" }),
        }),
      ]);
    }
  };

  beforeAll(async () => {
    w = await identityWorld();
  });
  afterAll(async () => {
    expect(await w.server.rt.db.run.count({ where: { tool: "touch" } })).toBe(0);
    await w.close();
  });

  it("should refuse a token whose sub is a number (it would share the principal of the subject named that string)", async () => {
    await refused(await w.issuer.sign(claims({ sub: 42 })), /has no "sub" claim/);
  });

  it("should refuse a token whose sub is an object (every object subject would be one principal)", async () => {
    await refused(await w.issuer.sign(claims({ sub: { id: "bob" } })), /has no "sub" claim/);
  });

  it("should refuse a token whose sub is empty", async () => {
    await refused(await w.issuer.sign(claims({ sub: "" })), /has no "sub" claim/);
  });

  for (const value of ["constructor", "__proto__", "toString", "hasOwnProperty"])
    it(`should refuse a token whose only role claim value is "${value}" (a name of Object.prototype, not of the table)`, async () => {
      await refused(await w.issuer.sign(claims({ groups: [value] })), /has no role here/);
    });

  it("should still give the highest mapped role when a prototype name sits beside a mapped value", async () => {
    const token = await w.issuer.sign(claims({ groups: ["constructor", "tai-users"] }));
    expect((await asBearer(w.graphql, token, VIEWER)).data).toEqual({
      viewer: { role: "USER", keyName: `oidc:${w.issuer.issuer}#bob` },
    });
  });

  it("should refuse the issuer's ID token used as an access token, on /graphql and /mcp (its aud is the client)", async () => {
    const { id_token } = await w.issuer.login("bob");
    expect(id_token).toBeTruthy();
    await refused(id_token!, /is for another resource/);
    const res = await fetch(w.server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${id_token}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_token"/);
    expect(await res.text()).not.toContain(id_token);
  });
});
