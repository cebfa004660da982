import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asBearer, identityWorld, type IdentityWorld } from "./support.ts";

const VIEWER = /* GraphQL */ `
  {
    viewer {
      role
      keyName
      authenticated
      issuer
      subject
      expiresAt
    }
  }
`;

/** Tokens from a real OpenID Connect provider (oidc-provider), their role from the issuer's group claim table. */
describe("an access token's role", () => {
  let w: IdentityWorld;
  beforeAll(async () => {
    w = await identityWorld();
  });
  afterAll(() => w.close());

  it.each([
    ["alice", "tai-admins", "ADMIN"],
    ["bob", "tai-users", "USER"],
    ["rita", "tai-readers", "READER"],
  ])(
    "should give %s (group %s), logged in at the issuer, the role %s and the subject as the caller",
    async (account, _g, role) => {
      const answer = await asBearer(w.graphql, await w.token(account), VIEWER);
      expect(answer.errors).toBeUndefined();
      expect(answer.data).toEqual({
        viewer: {
          role,
          keyName: `oidc:${w.issuer.issuer}#${account}`,
          authenticated: true,
          issuer: w.issuer.issuer,
          subject: account,
          expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      });
    },
  );

  it("should refuse a token whose groups map to no role, UNAUTHENTICATED, never falling back to anonymous", async () => {
    const answer = await asBearer(w.graphql, await w.token("nobody"), VIEWER);
    expect(answer.errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('its claim "groups" names none of the values'),
        extensions: expect.objectContaining({ code: "UNAUTHENTICATED" }),
      }),
    ]);
  });

  it("should still take API keys beside tokens", async () => {
    const key = await w.server.rt.keys.create("ops", "USER");
    const answer = await asBearer<{ viewer: { keyName: string; issuer: null } }>(w.graphql, key, VIEWER);
    expect(answer.data?.viewer).toMatchObject({ keyName: "ops", issuer: null, role: "USER" });
  });
});
