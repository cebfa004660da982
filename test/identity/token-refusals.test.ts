import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../graphql/support.ts";
import { asBearer, identityWorld, RESOURCE, type IdentityWorld } from "./support.ts";

const DISPATCH = /* GraphQL */ `
  mutation {
    dispatch(input: { tool: "touch", input: {} }) {
      status
    }
  }
`;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);

/**
 * Every way an access token can be wrong, each refused `UNAUTHENTICATED` with a message saying what was wrong, and
 * nothing stored: forged with the issuer's own signing key so that only the one thing tested is wrong.
 */
describe("a bad access token", () => {
  let w: IdentityWorld;
  const claims = () => ({
    iss: w.issuer.issuer,
    sub: "bob",
    aud: RESOURCE,
    iat: now(),
    exp: now() + 300,
    groups: ["tai-users"],
  });
  const dispatchAs = (token: string) => asBearer(w.graphql, token, DISPATCH);
  const refused = async (token: string, message: string | RegExp) => {
    const answer = await dispatchAs(token);
    expect(answer.data?.dispatch ?? null).toBeNull();
    expect(answer.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(message),
        extensions: expect.objectContaining({ code: "UNAUTHENTICATED" }),
      }),
    ]);
    expect(JSON.stringify(answer)).not.toContain(token);
  };

  beforeAll(async () => {
    w = await identityWorld();
  });
  afterAll(async () => {
    expect(await w.server.rt.db.run.count({ where: { tool: "touch", status: { not: "SUCCEEDED" } } })).toBe(0);
    await w.close();
  });

  it("should run the tool for a well-formed token (the control every refusal below differs from in one thing)", async () => {
    expect((await dispatchAs(await w.issuer.sign(claims()))).data).toEqual({ dispatch: { status: "SUCCEEDED" } });
  });

  it("should refuse an expired token (past the skew)", async () => {
    await refused(await w.issuer.sign({ ...claims(), exp: now() - 120 }), /the access token expired/);
  });

  it("should refuse a token not valid yet (nbf past the skew)", async () => {
    await refused(await w.issuer.sign({ ...claims(), nbf: now() + 600 }), /is not valid yet \(nbf\)/);
  });

  it("should refuse a token for another resource (aud)", async () => {
    await refused(await w.issuer.sign({ ...claims(), aud: "http://elsewhere.test" }), /is for another resource/);
  });

  it("should refuse a token from an issuer it does not trust", async () => {
    await refused(
      await w.issuer.sign({ ...claims(), iss: "http://127.0.0.1:9" }),
      /from an issuer this server does not trust/,
    );
  });

  it("should refuse an unsigned token (alg none)", async () => {
    await refused(`${b64({ alg: "none", typ: "JWT" })}.${b64(claims())}.`, /is unsigned \(alg none\)/);
  });

  it("should refuse an HMAC token keyed with the issuer's public key (algorithm confusion)", async () => {
    const { publicKey } = await generateKeyPair("RS256", { extractable: true });
    const pem = new TextEncoder().encode(await exportSPKI(publicKey));
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: "HS256" }).sign(pem);
    await refused(token, /signed with HS256; only asymmetric algorithms are accepted/);
  });

  it("should refuse a token whose payload was tampered with (a group added after signing)", async () => {
    const [header, , signature] = (await w.token("bob")).split(".");
    const forged = `${header}.${b64({ ...claims(), groups: ["tai-admins"] })}.${signature}`;
    await refused(forged, /signature that does not verify/);
  });

  it("should refuse a token signed by a key the issuer rotated out, once a token of the new key was seen", async () => {
    const signedByOld = await w.issuer.rotate();
    await until(
      "a token of the new key to be taken",
      async () => (await dispatchAs(await w.issuer.sign(claims()))).data?.dispatch != null,
    );
    await refused(await signedByOld(claims()), /signed by a key its issuer does not publish/);
  });
});
