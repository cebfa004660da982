import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { gql } from "../graphql/support.ts";

/**
 * Admission control over GraphQL's HTTP door (docs/flow-control.md §5): a shed request is answered 503 with
 * `Retry-After`, unless another field of it took effect (a client resending on 503 would repeat that field).
 */
describe("a dispatch admission control sheds, over HTTP", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.dispose();
  });

  async function full() {
    const app = new App();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    app.tool({ name: "held", description: "Waits for the test.", input: z.object({}) }, async () => (await gate, "ok"));
    const rt = await testRuntime({ app, kind: "sqlite", config: { maxInFlight: 1 } });
    runtimes.push(rt);
    const held = rt.dispatcher.run({ tool: "held", input: {}, caller: as("USER"), door: "graphql" });
    return { rt, server: buildApp(rt), done: () => (release(), held) };
  }

  it("should answer 503 with Retry-After 1 and extensions UNAVAILABLE, retryable, storing nothing", async () => {
    const { rt, server, done } = await full();
    const r = await gql(server, `mutation { dispatch(input: { tool: "echo", input: { text: "x" } }) { status } }`);
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("1");
    expect(r.body.errors?.[0]?.extensions).toEqual({ code: "UNAVAILABLE", retryable: true, retryAfterSeconds: 1 });
    await done();
    expect(await rt.db.run.count({ where: { tool: "echo" } })).toBe(0);
  });

  it("should not answer 503 when another field of the same request took effect", async () => {
    const { rt, server, done } = await full();
    const admin = await rt.keys.create("shed-admin", "ADMIN");
    const r = await gql(
      server,
      `mutation {
        p: createPreset(input: { name: "made_once", description: "Once.", baseTool: "echo", fixedKwargs: { text: "a" } }) { name }
        d: dispatch(input: { tool: "echo", input: { text: "x" } }) { status }
      }`,
      { headers: { authorization: `Bearer ${admin}` } },
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("retry-after")).toBeNull();
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: "UNAVAILABLE", retryAfterSeconds: 1 });
    expect(await rt.presets.get("made_once")).not.toBeNull();
    await done();
  });
});
