import type WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../graphql/support.ts";
import { handshake, startServer, type Started } from "./edge-support.ts";

/** The messages a raw graphql-transport-ws socket received, by operation id. */
function messagesOf(socket: WebSocket) {
  const got: { id?: string; type: string; payload?: unknown }[] = [];
  socket.on("message", (m) => got.push(JSON.parse(String(m))));
  return {
    got,
    of: (id: string) => got.filter((m) => m.id === id),
    /** Resolves with the first `next` or `error` payload of operation `id`. */
    async first(id: string) {
      await until(`operation ${id} to answer`, () =>
        got.some((m) => m.id === id && (m.type === "next" || m.type === "error")),
      );
      return got.find((m) => m.id === id && (m.type === "next" || m.type === "error"))!;
    },
  };
}

const VIEWER = "{ viewer { role keyName } }";

describe("graphql-ws operations carrying their own Authorization header (GraphiQL's Headers tab)", () => {
  let s: Started | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  async function socket(payload: Record<string, unknown> = {}) {
    const h = await handshake(s!.url, payload);
    if (!("socket" in h)) throw new Error(`not acknowledged: ${JSON.stringify(h)}`);
    return { socket: h.socket, messages: messagesOf(h.socket) };
  }
  const send = (ws: WebSocket, id: string, query: string, headers?: Record<string, unknown>) =>
    ws.send(
      JSON.stringify({ id, type: "subscribe", payload: { query, ...(headers ? { extensions: { headers } } : {}) } }),
    );

  it("should run an operation as the key in extensions.headers, under any capitalisation of its name", async () => {
    s = await startServer({ TAI_ANONYMOUS_ROLE: "NONE" });
    const key = await s.rt.keys.create("graphiql", "ADMIN");
    const { socket: ws, messages } = await socket();
    send(ws, "1", VIEWER, { Authorization: `Bearer ${key}` });
    send(ws, "2", VIEWER, { authorization: `Bearer ${key}` });
    send(ws, "3", VIEWER, { AUTHORIZATION: `Bearer ${key}`, "content-type": "application/json" });
    for (const id of ["1", "2", "3"])
      expect((await messages.first(id)).payload).toEqual({ data: { viewer: { role: "ADMIN", keyName: "graphiql" } } });
    ws.close();
  });

  it("should let the operation's key win for that operation only, the socket's key still serving the others", async () => {
    s = await startServer();
    const admin = await s.rt.keys.create("op-admin", "ADMIN");
    const reader = await s.rt.keys.create("socket-reader", "READER");
    const { socket: ws, messages } = await socket({ authorization: `Bearer ${reader}` });
    send(ws, "1", VIEWER, { Authorization: `Bearer ${admin}` });
    expect((await messages.first("1")).payload).toEqual({ data: { viewer: { role: "ADMIN", keyName: "op-admin" } } });
    send(ws, "2", VIEWER);
    expect((await messages.first("2")).payload).toEqual({
      data: { viewer: { role: "READER", keyName: "socket-reader" } },
    });
    send(ws, "3", VIEWER, {});
    expect((await messages.first("3")).payload).toEqual({
      data: { viewer: { role: "READER", keyName: "socket-reader" } },
    });
    ws.close();
  });

  it("should fail an operation with a bad key or a malformed header with UNAUTHENTICATED, never falling back, and keep the socket open", async () => {
    s = await startServer();
    const { socket: ws, messages } = await socket();
    send(ws, "1", VIEWER, { Authorization: "Bearer tai_not_a_real_key" });
    expect(await messages.first("1")).toMatchObject({
      type: "error",
      payload: [{ message: "the API key is unknown or revoked", extensions: { code: "UNAUTHENTICATED" } }],
    });
    send(ws, "2", VIEWER, { Authorization: 42 });
    expect(await messages.first("2")).toMatchObject({
      type: "error",
      payload: [
        {
          message: expect.stringContaining("extensions.headers.Authorization must be a string"),
          extensions: { code: "UNAUTHENTICATED" },
        },
      ],
    });
    send(ws, "3", VIEWER, { authorization: "Bearer a", Authorization: "Bearer b" });
    expect(await messages.first("3")).toMatchObject({
      type: "error",
      payload: [{ extensions: { code: "UNAUTHENTICATED" } }],
    });
    send(ws, "4", VIEWER);
    expect((await messages.first("4")).payload).toEqual({ data: { viewer: { role: "USER", keyName: null } } });
    expect(ws.readyState).toBe(ws.OPEN);
    ws.close();
  });

  it("should end a subscription with UNAUTHENTICATED when the key in its headers is revoked", async () => {
    s = await startServer();
    const key = await s.rt.keys.create("revoked-op", "USER");
    const { socket: ws, messages } = await socket();
    const before = s.rt.bus.listenerCount("toolsChanged");
    send(ws, "1", "subscription { toolsChanged { name } }", { Authorization: `Bearer ${key}` });
    await until("the subscription to listen", () => s!.rt.bus.listenerCount("toolsChanged") > before);
    await s.rt.keys.revoke("revoked-op");
    expect(await messages.first("1")).toMatchObject({ payload: [{ extensions: { code: "UNAUTHENTICATED" } }] });
    await until("the subscription to be released", () => s!.rt.bus.listenerCount("toolsChanged") === before);
    ws.close();
  });
});
