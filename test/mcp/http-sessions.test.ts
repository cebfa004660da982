import { randomUUID } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { callerOf } from "../../src/auth/roles.ts";
import { until } from "../graphql/support.ts";
import { freshDatabase, redisTestUrl, requirePostgres, requireRedis } from "../helpers/databases.ts";
import { redisSubscribed } from "../helpers/redis.ts";
import { connect, startServer, type McpTestServer } from "./support.ts";
// The tools both instances serve (`approve` parks, `wait_for_cancel` runs until
// cancelled), registered on the shared handle every runtime of this file sees.
import "../fixtures/mcp-tools.ts";

/**
 * Sessions across instances (docs/mcp.md): two servers over one PostgreSQL database and
 * one Redis. A client opens its session on A; a fetch of its own then sends what follows
 * to B, or to A, as each test needs. Under CI=true a missing PostgreSQL or Redis fails
 * this file; elsewhere it is skipped.
 */
const ready = (await requirePostgres()) && (await requireRedis());

describe.skipIf(!ready)("MCP sessions across two instances", () => {
  let a: McpTestServer;
  let b: McpTestServer;
  let drop: () => Promise<void>;
  let key: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    const db = await freshDatabase("postgres");
    drop = db.drop;
    const prefix = `tai42-test-${randomUUID()}:`;
    const config = { redisUrl: redisTestUrl(), redisPrefix: prefix };
    a = await startServer({ databaseUrl: db.url, config });
    b = await startServer({ databaseUrl: db.url, config });
    await redisSubscribed(prefix, ["mcpClientMessage", "mcpSessionClosed", "configChanged"]);
    key = await a.rt.keys.create("mcp-session-user", "USER");
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => {});
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await drop?.();
  });

  /** A client whose requests go to `route.to`, switched by the test; it remembers where each went. */
  async function routedClient(options: Parameters<typeof connect>[1] = {}) {
    const route = { to: a };
    const log: { method: string; instance: "A" | "B"; status: number }[] = [];
    const fetch: FetchLike = async (url, init) => {
      const target = route.to;
      const res = await globalThis.fetch(String(url).replace(a.url, target.url), init);
      log.push({ method: init?.method ?? "GET", instance: target === a ? "A" : "B", status: res.status });
      return res;
    };
    const { client, transport } = await connect(a.url, { key, ...options, fetch });
    clients.push(client);
    return { client, transport, route, log };
  }

  it("should continue on B a session opened on A, B rebuilding it from the database", async () => {
    const { client, transport, route, log } = await routedClient();
    expect(transport.sessionId).toMatch(/^mcp_[A-Za-z0-9_-]{43}$/);
    route.to = b;
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => t.name)).toContain("approve");
    const result = (await client.callTool({ name: "echo", arguments: { text: "on B" } })) as CallToolResult;
    expect(result.content).toEqual([{ type: "text", text: "on B" }]);
    expect(await b.rt.runs.get(result._meta!["tai42/runId"] as string)).toMatchObject({
      status: "SUCCEEDED",
      door: "mcp",
      callerKey: "mcp-session-user",
    });
    expect(log.filter((l) => l.method === "POST").map((l) => `${l.instance} ${l.status}`)).toEqual([
      "A 200",
      "A 202",
      "B 200",
      "B 200",
    ]);
  });

  it("should cancel the run on A when the client's cancellation is posted to B", async () => {
    const { client, route } = await routedClient();
    const controller = new AbortController();
    const call = client.callTool({ name: "wait_for_cancel", arguments: {} }, undefined, { signal: controller.signal });
    let runId = "";
    await until("the run to start on A", async () => {
      runId =
        (await a.rt.db.run.findFirst({ where: { tool: "wait_for_cancel", status: "RUNNING" }, select: { id: true } }))
          ?.id ?? "";
      return runId !== "";
    });
    route.to = b;
    controller.abort("the user pressed stop");
    await expect(call).rejects.toThrow();
    await until("the run to be cancelled", async () => (await a.rt.runs.get(runId))?.status === "CANCELLED");
    expect(await a.rt.runs.get(runId)).toMatchObject({
      status: "CANCELLED",
      errorKind: "CANCELLED",
      errorMessage: "the MCP client cancelled the call: the user pressed stop",
      door: "mcp",
    });
  });

  it("should resume a parked run on A with the elicitation answer the client posts to B", async () => {
    const asked: string[] = [];
    const { client, route, log } = await routedClient({
      onElicit: (request) => {
        asked.push(request.params.message);
        route.to = b;
        return { action: "accept", content: { ok: true } };
      },
    });
    const result = (await client.callTool({ name: "approve", arguments: { amount: 12 } })) as CallToolResult;
    expect(asked).toEqual(["Approve 12?"]);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ amount: 12, approved: true });
    expect(log.at(-1)).toMatchObject({ method: "POST", instance: "B", status: 202 });
    const runId = result._meta!["tai42/runId"] as string;
    expect(await a.rt.runs.get(runId)).toMatchObject({ status: "SUCCEEDED", door: "mcp" });
    expect(await a.rt.interactions.forRun(runId)).toEqual([
      expect.objectContaining({ status: "ANSWERED", answer: { ok: true } }),
    ]);
  });

  it("should forget a session deleted on A on B as well", async () => {
    const { client, transport, route } = await routedClient();
    const id = transport.sessionId!;
    await transport.terminateSession();
    route.to = b;
    await until("B to answer 404 for the deleted session", async () => {
      const res = await fetch(b.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${key}`,
          "mcp-session-id": id,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      await res.text();
      return res.status === 404;
    });
    await client.close();
  });

  // Last: the manifest stays active.
  it("should notify list_changed on A's stream when a manifest is activated on B", async () => {
    const { client, log } = await routedClient();
    const changes: unknown[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void changes.push(n));
    await until("the client's GET stream to be open on A", () =>
      log.some((l) => l.method === "GET" && l.instance === "A" && l.status === 200),
    );
    const admin = callerOf("ADMIN", "test-admin", "key-admin");
    await b.rt.manifests.put(
      { name: "only-echo", description: "Echo alone.", document: { tools: { include: ["echo"] } } },
      undefined,
      admin,
    );
    await b.rt.manifests.activate("only-echo", admin);
    await until("list_changed on A's stream", () => changes.length > 0);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
  });
});
