import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../../src/app.ts";
import { until } from "../../graphql/support.ts";
import { as, testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { recordingProxy, startEverythingHttp } from "./support.ts";

/**
 * server-everything over Streamable HTTP behind stored `mcp` connectors, through tai42's runtime: tiers at the
 * chokepoint (a recording proxy shows what reached the upstream) and the connection manager's own reconnect after the
 * upstream process is killed and started again on its port.
 */
const admin = as("ADMIN");
let rt: TestRuntime;
let server: Awaited<ReturnType<typeof startEverythingHttp>>;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;

beforeAll(async () => {
  rt = await testRuntime({ app: new App() });
  server = await startEverythingHttp();
  proxy = await recordingProxy(server.url);
  await rt.connectors.put(admin, { name: "rec", kind: "mcp", settings: { url: proxy.url, allowPrivateNetwork: true } });
  await rt.connectors.put(admin, {
    name: "web",
    kind: "mcp",
    settings: { url: server.url, allowPrivateNetwork: true },
  });
}, 120_000);

// A test that failed with the upstream down leaves it started again for the next.
afterEach(async () => {
  if (server.child.exitCode !== null || server.child.signalCode !== null)
    server = await startEverythingHttp(server.port);
}, 30_000);

afterAll(async () => {
  await rt?.dispose();
  await proxy?.close();
  await server?.stop();
});

const dispatch = (tool: string, input: Record<string, unknown>, role: "READER" | "USER" = "USER") =>
  rt.dispatcher.run({ tool, input, caller: as(role), door: "runtime" });
/** The upstream tools the proxy saw called, in order. */
const calledUpstream = () => proxy.sent.filter((m) => m.method === "tools/call").map((m) => m.params?.name);

describe("a Streamable HTTP MCP upstream through tai42's runtime", () => {
  it("should refuse a READER the upstream's write tool without any request reaching the upstream, and run its read tool", async () => {
    expect(rt.surface.resolve("rec_gzip-file-as-resource")).toMatchObject({ origin: "CONNECTOR", tier: "write" });
    const before = proxy.sent.length;
    const refused = await dispatch(
      "rec_gzip-file-as-resource",
      { name: "refused.gz", data: "data:text/plain;base64,aGk=" },
      "READER",
    );
    expect(refused).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    expect(await dispatch("rec_echo", { message: "allowed" }, "READER")).toMatchObject({
      status: "SUCCEEDED",
      content: [{ type: "text", text: "Echo: allowed" }],
    });
    expect(calledUpstream()).toEqual(["echo"]);
    expect(proxy.sent.slice(before).map((m) => m.method)).toEqual(["tools/call"]);
  });

  it("should fail a call UNAVAILABLE once the upstream is killed, then reconnect by itself when it is back on its port", async () => {
    expect((await dispatch("web_echo", { message: "before" })).status).toBe("SUCCEEDED");
    expect(rt.connections.health("web").state).toBe("CONNECTED");
    await server.stop();
    const down = await dispatch("web_echo", { message: "anyone?" });
    expect(down).toMatchObject({ status: "FAILED", errorKind: "UNAVAILABLE" });
    expect(rt.connections.health("web").state).not.toBe("CONNECTED");
    server = await startEverythingHttp(server.port);
    await until("the manager reconnects", () => rt.connections.health("web").state === "CONNECTED", 30_000);
    expect(await dispatch("web_echo", { message: "after" })).toMatchObject({
      status: "SUCCEEDED",
      content: [{ type: "text", text: "Echo: after" }],
    });
  }, 60_000);
});
