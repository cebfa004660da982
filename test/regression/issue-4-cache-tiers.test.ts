import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

describe("cache never replays across roles or branches (issue 4)", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let user: string;
  let lookups: number;
  beforeEach(async () => {
    const app = new App();
    lookups = 0;
    app.tool({ name: "lookup", description: "Look a word up.", input: z.object({ word: z.string() }) }, ({ word }) => {
      lookups++;
      return { text: word };
    });
    app.tool(
      { name: "vault", description: "Fenced.", input: z.object({ text: z.string() }), tier: "fenced" },
      () => "fenced stuff",
    );
    rt = await testRuntime({ app, config: { demo: false } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    user = await rt.keys.create("user", "USER");
    const document = {
      extensionsModules: ["tai42/contrib"],
      extensions: {
        lookup: [
          [{ name: "chain", config: { next: ["vault"] } }, "cache"],
          ["cache"],
          [{ name: "label", config: { label: "L" } }, "cache"],
        ],
      },
    };
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
  afterEach(() => rt.dispose());

  const dispatch = async (tool: string, input: Record<string, unknown>, key: string) =>
    (
      await gql(
        `mutation($t: String!, $i: JSONObject!) { dispatch(input: { tool: $t, input: $i }) { status data details errorKind errorMessage } }`,
        { t: tool, i: input },
        key,
      )
    ).data!.dispatch;

  it("should not serve a USER the cached result of a chain into a fenced tool that an ADMIN ran", async () => {
    expect(await dispatch("lookup_chain_cache", { word: "x" }, admin)).toMatchObject({
      status: "SUCCEEDED",
      data: "fenced stuff",
    });
    const denied = await dispatch("lookup_chain_cache", { word: "x" }, user);
    expect(denied).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    expect(JSON.stringify(denied)).not.toContain("fenced stuff");
    // The ADMIN's own repeat is still a hit.
    expect(await dispatch("lookup_chain_cache", { word: "x" }, admin)).toMatchObject({
      status: "SUCCEEDED",
      data: "fenced stuff",
      details: { cache: "hit" },
    });
  });

  it("should keep each branch's cached results to itself: a plain cache branch never answers with another branch's chained or labelled result", async () => {
    await dispatch("lookup_chain_cache", { word: "y" }, admin);
    await dispatch("lookup_label_cache", { word: "y" }, admin);
    const plain = await dispatch("lookup_cache", { word: "y" }, admin);
    expect(plain).toMatchObject({ status: "SUCCEEDED", data: { text: "y" } });
    expect(plain.details).toBeNull();
    expect(lookups).toBe(3);
  });
});
