import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { normalizeResult, toolResult } from "../../src/tools/result.ts";
import { ofType, runToEnd, useScript } from "../agent/support.ts";
import { as } from "../helpers/runtime.ts";
import { connect, startServer, textOf, type McpTestServer } from "../mcp/support.ts";

/**
 * `ToolResult.toolCallId` and `ctx.toolCallId` (seed 001-14): the id of the call a run
 * carries out — an agent's tool call, an MCP `tools/call` request — or absent.
 */
describe("toolCallId: the call a tool run carries out", () => {
  let server: McpTestServer;
  beforeAll(async () => {
    const app = new App();
    app.tool(
      { name: "whose_call", description: "Returns the call it carries out.", input: z.object({}) },
      (_input, ctx) => ({ toolCallId: ctx.toolCallId ?? null }),
    );
    server = await startServer({ app });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("should give a tool an agent calls the callId of the agent's ToolCallStep", async () => {
    useScript(server.rt.agents, "s", [
      { toolCalls: [{ toolName: "whose_call", input: {}, id: "call-abc" }] },
      { text: "done" },
    ]);
    const { log } = await runToEnd(server.rt.agents, { userMessage: "?", llmProvider: "s", toolNames: ["whose_call"] });
    const [call] = ofType(log, "tool_call_step");
    expect(call.callId).toBe("call-abc");
    expect(ofType(log, "tool_result_step")[0].result).toEqual({ toolCallId: "call-abc" });
  });

  it("should give a tool an MCP client calls the id of its tools/call request", async () => {
    const key = await server.rt.keys.create("call-id-user", "USER");
    const { client } = await connect(server.url, { key });
    try {
      const result = (await client.callTool({ name: "whose_call", arguments: {} })) as CallToolResult;
      expect(JSON.parse(textOf(result))).toEqual({ toolCallId: expect.stringMatching(/^\d+$/) });
    } finally {
      await client.close();
    }
  });

  it("should leave it absent on a door that carries out no call", async () => {
    const run = await server.rt.dispatcher.run({ tool: "whose_call", input: {}, caller: as("USER"), door: "graphql" });
    expect(run.data).toEqual({ toolCallId: null });
  });

  it("should fill ToolResult.toolCallId with the call, unless the body's result names one", () => {
    expect(normalizeResult("t", "x", "call-1")).toMatchObject({ toolName: "t", toolCallId: "call-1" });
    expect(normalizeResult("t", toolResult.fromError("t", "bad", "its-own"), "call-1").toolCallId).toBe("its-own");
    expect(normalizeResult("t", "x").toolCallId).toBeUndefined();
  });
});
