import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const SECRET = "span-secret-1a2b3c4d5e";

describe("monitor spans never carry credentials (issue 4)", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let user: string;
  let callbackUrls: string[];
  beforeEach(async () => {
    process.env.EXT_SPAN_TOKEN = SECRET;
    callbackUrls = [];
    const app = new App();
    app.tool(
      {
        name: "request_review",
        description: "Ask a reviewer; they answer at callback_url.",
        input: z.object({ doc: z.string(), callback_url: z.string() }),
      },
      ({ callback_url }) => {
        callbackUrls.push(callback_url);
        return "requested";
      },
    );
    app.tool(
      { name: "call_api", description: "Calls an API with a token.", input: z.object({ token: z.string() }) },
      ({ token }) => {
        throw new ToolError(`the API refused token ${token}`, { kind: "UPSTREAM" });
      },
    );
    rt = await testRuntime({ app, config: { demo: false } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    user = await rt.keys.create("user", "USER");
    expect(
      (
        await gql(
          `mutation { createPreset(input: { name: "call_prod", description: "Prod.", baseTool: "call_api", fixedKwargs: { token: "!ENV EXT_SPAN_TOKEN" } }) { name } }`,
          {},
          admin,
        )
      ).errors,
    ).toBeUndefined();
    const document = { extensions: { request_review: [["monitor", "ask_external"]], call_prod: ["monitor"] } };
    expect(
      (
        await gql(
          `mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`,
          { i: { name: "m", document } },
          admin,
        )
      ).errors,
    ).toBeUndefined();
    expect((await gql(`mutation { activateManifest(name: "m") { name } }`, {}, admin)).errors).toBeUndefined();
  });
  afterEach(async () => {
    delete process.env.EXT_SPAN_TOKEN;
    await rt.dispose();
  });

  const dispatch = async (tool: string, input: Record<string, unknown>) =>
    (
      await gql(
        `mutation($t: String!, $i: JSONObject!) { dispatch(input: { tool: $t, input: $i }) { id status errorMessage } }`,
        { t: tool, i: input },
        user,
      )
    ).data!.dispatch;

  it("should not record the callback token of an ask_external interaction in a span of a monitor layer beneath it", async () => {
    expect((await dispatch("request_review_monitor_ask_external", { doc: "a.md" })).status).toBe("PARKED");
    const token = callbackUrls[0].split("/callbacks/")[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const spans = await rt.spans.list();
    expect(spans).toHaveLength(1);
    expect(spans[0].attributes.input).toMatchObject({
      doc: "a.md",
      callback_url: expect.stringContaining("/callbacks/[redacted]"),
    });
    expect(JSON.stringify([spans, await rt.db.span.findMany()])).not.toContain(token);
  });

  it("should scrub a resolved !ENV value from a span's error message, as the run record does", async () => {
    const run = await dispatch("call_prod_monitor", {});
    expect(run.status).toBe("FAILED");
    expect(run.errorMessage).toContain("[redacted]");
    const spans = await rt.spans.list();
    expect(spans[0]).toMatchObject({ status: "FAILED", attributes: { errorKind: "UPSTREAM" } });
    expect(JSON.stringify([spans, await rt.db.span.findMany()])).not.toContain(SECRET);
  });
});
