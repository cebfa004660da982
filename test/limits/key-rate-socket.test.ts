import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, wsClient } from "../graphql/support.ts";

/** A key's rate set while its socket is open holds for that socket's next operations (docs/flow-control.md §2). */
describe("a key's rate changed while its socket is open", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  let url: string;

  beforeEach(async () => {
    rt = await testRuntime();
    server = buildApp(rt);
    url = await server.start(0, "127.0.0.1");
  });
  afterEach(async () => {
    await server.stop();
    await rt.dispose();
  });

  it("should refuse the socket's dispatches past the new rate, and admit them again once it is removed", async () => {
    const key = await rt.keys.create("socket-key", "USER");
    const client = wsClient(url, { connectionParams: { authorization: `Bearer ${key}` } });
    // One socket throughout: a subscription held open keeps the lazy client from reconnecting between operations.
    let connections = 0;
    client.on("connected", () => connections++);
    const held = collect(client, "subscription { toolsChanged { name } }");
    const dispatch = async () => {
      const r = collect<{ dispatch: { status: string; errorKind: string | null } }>(
        client,
        `mutation { dispatch(input: { tool: "echo", input: { text: "x" } }) { status errorKind } }`,
      );
      return (await r.waitForData(1))[0].dispatch;
    };
    expect(await dispatch()).toEqual({ status: "SUCCEEDED", errorKind: null });
    await rt.keys.setRate("socket-key", { tokens: 1, intervalSeconds: 60 });
    expect(await dispatch()).toEqual({ status: "SUCCEEDED", errorKind: null });
    expect(await dispatch()).toEqual({ status: "FAILED", errorKind: "RATE_LIMITED" });
    await rt.keys.setRate("socket-key", null);
    expect(await dispatch()).toEqual({ status: "SUCCEEDED", errorKind: null });
    expect(connections).toBe(1);
    held.stop();
    await client.dispose();
  }, 20_000);
});
