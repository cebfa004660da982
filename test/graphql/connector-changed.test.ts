import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "graphql-ws";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { fakeTool } from "../fixtures/connector-kinds.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { CHANGE, fakeApp, fakeInput, PUT } from "./connector-support.ts";
import { collect, sseReader, until, wsClient } from "./support.ts";

/** `connectorChanged` (docs/connectors.md §7, §12) over real sockets, for an ADMIN. */
describe("connectorChanged", () => {
  const { app, fake } = fakeApp();
  let rt: TestRuntime;
  let server: TaiServer;
  let url = "";
  let admin = "";
  const clients: Client[] = [];
  const gql = async (query: string, variables: Record<string, unknown> = {}) =>
    (
      await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${admin}` },
        body: JSON.stringify({ query, variables }),
      })
    ).json() as Promise<{
      data?: any;
      errors?: unknown[];
    }>;

  beforeAll(async () => {
    rt = await testRuntime({ app });
    server = buildApp(rt);
    url = await server.start(0, "127.0.0.1");
    admin = await rt.keys.create("changed-admin", "ADMIN");
    expect((await gql(PUT, { i: fakeInput("acme") })).errors).toBeUndefined();
    expect((await gql(PUT, { i: fakeInput("other") })).errors).toBeUndefined();
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.dispose();
    await server?.stop();
    await rt?.dispose();
  });

  it("delivers a refresh's change over graphql-ws, only for the connector named", async () => {
    const ws = wsClient(url, { connectionParams: { authorization: `Bearer ${admin}` } });
    clients.push(ws);
    const sub = collect<{ connectorChanged: Record<string, unknown> }>(
      ws,
      `subscription { connectorChanged(name: "acme") { ${CHANGE} } }`,
    );
    await until("the subscription to listen", () => rt.bus.listenerCount("connectorChanged") >= 1);
    fake.upstream("other").tools = [fakeTool("other_only")];
    expect(
      (await gql(`mutation { refreshConnector(name: "other") { change { listingVersion } } }`)).data.refreshConnector
        .change,
    ).toEqual({ listingVersion: 2 });
    fake.upstream("acme").tools = [fakeTool("echo"), fakeTool("lookup")];
    expect(
      (await gql(`mutation { refreshConnector(name: "acme") { change { listingVersion } } }`)).data.refreshConnector
        .change,
    ).toEqual({ listingVersion: 2 });
    const [first] = await sub.waitForData(1);
    expect(first.connectorChanged).toMatchObject({
      connector: "acme",
      listingVersion: 2,
      cause: "REFRESH",
      added: ["acme_lookup"],
      removed: ["acme_write_thing"],
    });
    expect(sub.data).toHaveLength(1);
    expect(sub.errors).toEqual([]);
    sub.stop();
  });

  it("delivers it over SSE too", async () => {
    const controller = new AbortController();
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query: `subscription { connectorChanged { connector listingVersion cause } }` }),
      signal: controller.signal,
    });
    const reader = sseReader(res);
    await until("the SSE subscription to listen", () => rt.bus.listenerCount("connectorChanged") >= 1);
    fake.upstream("acme").tools = [fakeTool("echo")];
    await gql(`mutation { refreshConnector(name: "acme") { change { listingVersion } } }`);
    await until("the SSE event", () => reader.nexts().length >= 1);
    expect(reader.nexts()).toEqual([
      { data: { connectorChanged: { connector: "acme", listingVersion: 3, cause: "REFRESH" } } },
    ]);
    await reader.cancel();
    controller.abort();
  });
});
