import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import {
  collect,
  gatedApp,
  RUN_EVENTS,
  sseReader,
  until,
  within,
  wsClient,
  type RunEventData,
} from "../graphql/support.ts";
import { connect as mcpConnect, textOf } from "../mcp/support.ts";
import { DISPATCH } from "../runlog/support.ts";

/**
 * Request timeouts (docs/deploy.md §"Request timeouts"): a client has
 * TAI_HEADERS_TIMEOUT_SECONDS to send a request's headers and TAI_REQUEST_TIMEOUT_SECONDS
 * to send the whole request; one that stalls is answered 408 and cut, over a real socket.
 * Only the receipt of a request is timed: streams and long dispatches outlive it.
 */
const HEADERS_S = 1;
const REQUEST_S = 2;

/** What a raw client received before the server closed its socket, and after how long. */
async function untilClosed(socket: Socket, boundMs: number): Promise<{ received: string; afterMs: number }> {
  const started = Date.now();
  let received = "";
  socket.on("data", (d) => (received += String(d)));
  socket.on("error", () => {});
  await within("the server to close the socket", new Promise((r) => socket.once("close", r)), boundMs);
  return { received, afterMs: Date.now() - started };
}

async function rawClient(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  await within("the connection", new Promise((r) => socket.once("connect", r)));
  return socket;
}

describe("request timeouts", () => {
  let rt: TestRuntime | undefined;
  let server: TaiServer | undefined;
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await server?.stop();
    await rt?.dispose();
    server = rt = undefined;
  });

  async function start(app = gatedApp().app) {
    rt = await testRuntime({
      app,
      env: { TAI_HEADERS_TIMEOUT_SECONDS: String(HEADERS_S), TAI_REQUEST_TIMEOUT_SECONDS: String(REQUEST_S) },
    });
    server = buildApp(rt);
    const url = await server.start(0, "127.0.0.1");
    return { url, port: Number(new URL(url).port) };
  }

  const head = (length: number) =>
    `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it("should answer 408 and close a client that stalls mid-headers, within the headers timeout", async () => {
    const { port } = await start();
    const socket = await rawClient(port);
    socket.write("POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const { received, afterMs } = await untilClosed(socket, HEADERS_S * 1000 + 3000);
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(afterMs).toBeGreaterThanOrEqual(HEADERS_S * 1000 - 100);
  });

  it("should answer 408 and close a client that sends headers and part of a body, a byte at a time, within the request timeout", async () => {
    const { port } = await start();
    const socket = await rawClient(port);
    const body = JSON.stringify({ query: "{ __typename }" });
    socket.write(head(body.length) + body.slice(0, 5));
    // Still sending, slowly: the request timeout counts the whole request, not idleness.
    let sent = 5;
    const drip = setInterval(() => sent < body.length - 1 && socket.writable && socket.write(body[sent++]), 200);
    cleanups.push(() => clearInterval(drip));
    const { received, afterMs } = await untilClosed(socket, REQUEST_S * 1000 + 3000);
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(afterMs).toBeGreaterThanOrEqual(REQUEST_S * 1000 - 100);
    // The request cut off mid-body is a client's fault: nothing is logged as an error.
    expect(rt!.logLines.filter((l) => JSON.parse(l).level === "error")).toEqual([]);
  });

  it("should keep an SSE subscription, a graphql-ws subscription, a long dispatch and a long MCP call going past the request timeout", async () => {
    const { app, release } = gatedApp();
    const { url, port } = await start(app);
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const sse = sseReader(
      await within(
        "the SSE response",
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ query: RUN_EVENTS }),
          signal: abort.signal,
        }),
      ),
    );
    const client = wsClient(url);
    cleanups.push(() => client.dispose());
    const ws = collect<RunEventData>(client, RUN_EVENTS);
    await until("both subscriptions to listen", () => rt!.bus.listenerCount("runEvent") === 2);
    const dispatched = fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: DISPATCH, variables: { tool: "gate", input: {} } }),
    });
    const { client: mcp } = await mcpConnect(url.replace(/\/graphql$/, "/mcp"));
    cleanups.push(() => mcp.close());
    const called = mcp.callTool({ name: "gate", arguments: {} });
    const gates = () =>
      sse
        .nexts<RunEventData>()
        .filter((e) => e.data?.runEvents.type === "RUN_STARTED" && e.data.runEvents.run.tool === "gate").length;
    await until("the long dispatch and the MCP call to start", () => gates() === 2);

    // A stalled client opened now is cut once the timeout has passed: the streams above are older than that.
    const stalled = await rawClient(port);
    stalled.write(head(100) + "{");
    expect((await untilClosed(stalled, REQUEST_S * 1000 + 3000)).received).toMatch(/^HTTP\/1\.1 408/);

    release();
    const answer = (await (await within("the dispatch answer", dispatched)).json()) as {
      data: { dispatch: { id: string; status: string } };
    };
    expect(answer.data.dispatch.status).toBe("SUCCEEDED");
    const result = (await within("the MCP call's result", called)) as { isError?: boolean; content?: unknown };
    expect([result.isError ?? false, textOf(result)]).toEqual([false, "open"]);
    const finished = (e: RunEventData) =>
      e.runEvents.type === "RUN_FINISHED" && e.runEvents.run.id === answer.data.dispatch.id;
    await until("the SSE stream to deliver the finish", () =>
      sse.nexts<RunEventData>().some((e) => e.data && finished(e.data)),
    );
    await until("the graphql-ws subscription to deliver the finish", () => ws.data.some(finished));
    expect(sse.ended()).toBe(false);
    expect(ws.errors).toEqual([]);
  }, 30_000);
});
