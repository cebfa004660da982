import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { ApiError } from "../../src/errors.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { fakeKinds } from "../fixtures/connector-kinds.ts";

const fake = fakeKinds("fake");
let rt: TestRuntime;

beforeAll(async () => {
  const app = new App();
  app.plugin({ name: "fake-kinds", connectors: { fake: fake.kind } });
  rt = await testRuntime({ app });
}, 120_000);
afterAll(async () => rt?.dispose());

const issuesOf = async (input: unknown) => {
  const e = await rt.connectors.put(as("ADMIN"), input as never).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  expect((e as ApiError).code).toBe("BAD_USER_INPUT");
  return (e as ApiError).issues;
};

describe("connector input checks", () => {
  it("reports a bad name and an unknown kind at once, listing the known kinds", async () => {
    const issues = await issuesOf({ name: "no spaces", kind: "nope", settings: {} });
    expect(issues).toContainEqual({ path: "/name", message: "must match ^[A-Za-z0-9_-]{1,64}$" });
    expect(issues.find((i) => i.path === "/kind")?.message).toMatch(/known: .*fake/);
  });

  it("reports the kind's settings issues, a literal sealed value and a server configuration marker at their paths", async () => {
    const issues = await issuesOf({
      name: "a",
      kind: "fake",
      settings: {
        upstream: "a",
        token: "literal-token",
        headers: { Authorization: "Bearer x", Ok: "!ENV GOOD" },
        url: "!ENV TAI_ADMIN_KEY",
        extra: 1,
      },
    });
    expect(issues).toContainEqual({
      path: "/settings/token",
      message: "must be an !ENV marker: a literal value would be stored",
    });
    expect(issues).toContainEqual({
      path: "/settings/headers/Authorization",
      message: "must be an !ENV marker: a literal value would be stored",
    });
    expect(issues.map((i) => i.path)).not.toContain("/settings/headers/Ok");
    expect(
      issues.find((i) => i.path === "/settings/url" && /server's own configuration/.test(i.message)),
    ).toBeDefined();
    expect(issues.map((i) => i.path)).toContain("/settings/extra");
  });

  it("reports every bad tool decision: tier, retry without idempotency, timeout and unknown keys", async () => {
    const issues = await issuesOf({
      name: "b",
      kind: "fake",
      settings: { upstream: "b" },
      tools: {
        echo: { tier: "root", timeoutSeconds: 0, colour: "red", retry: { maxAttempts: 3, idempotent: false } },
        other: { enabled: "yes" },
      },
    });
    const paths = issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "/tools/echo/tier",
        "/tools/echo/timeoutSeconds",
        "/tools/echo/colour",
        "/tools/echo/retry/idempotent",
        "/tools/other/enabled",
      ]),
    );
  });

  it("stores nothing and never connects on a refusal", async () => {
    await issuesOf({ name: "c", kind: "fake", settings: { upstream: "c", token: "plain" } });
    expect(await rt.db.connector.count()).toBe(0);
    expect(fake.upstreams.get("c")?.connects ?? 0).toBe(0);
  });
});
