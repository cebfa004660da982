import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { DefinitionError } from "../../src/definition-error.ts";
import { parseProjectConfig, projectEnv } from "../../src/project-config.ts";

const issuer = { issuer: "https://login.example.com", roles: { admins: "ADMIN" } };
const refusal = (env: NodeJS.ProcessEnv) => {
  try {
    loadConfig(env);
  } catch (e) {
    return e as DefinitionError;
  }
  throw new Error("loadConfig took it");
};

describe("the identity configuration (TAI_IDENTITY, the config file's identity)", () => {
  it("should read issuers with their defaults, the resource from TAI_PUBLIC_URL, and keep the client secret out of the object", () => {
    const config = loadConfig({
      TAI_PUBLIC_URL: "https://tai.example.com/base",
      TAI_OIDC_SECRET: "s3cret-value",
      TAI_IDENTITY: JSON.stringify({
        issuers: [{ ...issuer, introspection: { clientId: "tai", clientSecret: "!ENV TAI_OIDC_SECRET" } }],
      }),
    });
    expect(config.identity).toMatchObject({
      resource: "https://tai.example.com",
      clockSkewSeconds: 30,
      pollSeconds: 10,
      issuers: [{ issuer: "https://login.example.com", roleClaim: "groups", roles: { admins: "ADMIN" } }],
    });
    expect(JSON.stringify(config)).not.toContain("s3cret-value");
    expect(config.identity!.issuers[0].introspection!.clientSecret()).toBe("s3cret-value");
  });

  it.each([
    ["not JSON", "{", /TAI_IDENTITY: must be JSON/],
    ["no resource and no TAI_PUBLIC_URL", JSON.stringify({ issuers: [issuer] }), /TAI_IDENTITY\/resource: is required/],
    [
      "a client secret written out",
      JSON.stringify({
        resource: "https://t.example",
        issuers: [{ ...issuer, introspection: { clientId: "c", clientSecret: "plain" } }],
      }),
      /TAI_IDENTITY\/issuers\/0\/introspection\/clientSecret: must be an "!ENV NAME" marker/,
    ],
    [
      "a secret marker naming an unset variable",
      JSON.stringify({
        resource: "https://t.example",
        issuers: [{ ...issuer, introspection: { clientId: "c", clientSecret: "!ENV TAI_NOPE" } }],
      }),
      /names TAI_NOPE, which is unset/,
    ],
    [
      "an http issuer off loopback",
      JSON.stringify({ resource: "https://t.example", issuers: [{ ...issuer, issuer: "http://login.example.com" }] }),
      /issuers\/0\/issuer: must be an https URL/,
    ],
    [
      "a role that does not exist",
      JSON.stringify({ resource: "https://t.example", issuers: [{ ...issuer, roles: { admins: "ROOT" } }] }),
      /issuers\/0\/roles\/admins/,
    ],
    [
      "an empty role table",
      JSON.stringify({ resource: "https://t.example", issuers: [{ ...issuer, roles: {} }] }),
      /must map at least one claim value to a role/,
    ],
    ["no issuer", JSON.stringify({ resource: "https://t.example", issuers: [] }), /issuers/],
  ])("should refuse %s, naming the path", (_what, value, message) => {
    const e = refusal({ TAI_IDENTITY: value });
    expect(e).toBeInstanceOf(DefinitionError);
    expect(e.message).toMatch(message);
  });

  it("should pass the config file's identity on as TAI_IDENTITY", () => {
    const file = parseProjectConfig(
      { identity: { resource: "https://t.example", issuers: [issuer] } },
      "tai42.config.json",
    );
    const env = projectEnv(file, "/p", {});
    expect(loadConfig(env).identity?.issuers[0].issuer).toBe("https://login.example.com");
  });

  it("should refuse an unknown key in the config file's identity", () => {
    expect(() =>
      parseProjectConfig(
        { identity: { resource: "https://t.example", issuers: [issuer], audience: "x" } },
        "tai42.config.json",
      ),
    ).toThrow(/tai42\.config\.json: \/identity\/audience: Unrecognized key/);
  });
});
