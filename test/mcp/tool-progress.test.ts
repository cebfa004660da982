import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { until } from "../graphql/support.ts";
import { connect, startServer, type McpTestServer } from "./support.ts";

let server: McpTestServer;
let key = "";
const clients: Client[] = [];

beforeAll(async () => {
  const app = new App();
  app.tool({ name: "crawl", description: "Crawls and reports.", input: z.object({}) }, async (_i, ctx) => {
    ctx.onUpdate({ message: "fetched 2 of 5 pages", progress: 2, total: 5 });
    await until("the update to be stored", async () =>
      (await server.rt.runs.events({ runId: ctx.runId }, 0)).some((e) => e.type === "RUN_PROGRESS"),
    );
    return "crawled";
  });
  server = await startServer({ app, env: { TAI_MCP_SESSIONS: "0" } });
  key = await server.rt.keys.create("mcp-user", "USER");
});
afterAll(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.stop();
});

describe("MCP progress notifications come from run events, RUN_PROGRESS included", () => {
  it("should send the tool's own update (its message, progress out of total) as a notifications/progress between start and end", async () => {
    const { client } = await connect(server.url, { key });
    clients.push(client);
    const progress: Progress[] = [];
    const result = (await client.callTool({ name: "crawl", arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    const runId = result._meta!["tai42/runId"];
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress.map((p) => p.message)).toEqual([
      `run ${runId} of "crawl" started`,
      `"crawl": fetched 2 of 5 pages (2/5)`,
      `run ${runId} SUCCEEDED`,
    ]);
  });
});
