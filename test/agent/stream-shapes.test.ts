import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { toolResult } from "../../src/tools/result.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "./fixtures.ts";
import { ofType, runToEnd, types, useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

/**
 * The agent test app plus tools that return their own result shapes: `read_lines` returns
 * content blocks with details (as the seed's AgentToolResult does), `sealed_read` is a
 * secret tool with details, `final_word` ends the loop with a text answer.
 */
async function setup() {
  const app = agentTestApp();
  app.tool(
    { name: "read_lines", description: "Reads lines of a file.", input: z.object({ path: z.string() }) },
    ({ path }) =>
      toolResult({
        content: [
          { type: "text", text: "line 1\nline 2" },
          { type: "json", data: { lines: 2 } },
        ],
        details: { path, range: [1, 2], matches: 0 },
      }),
  );
  app.tool({ name: "sealed_read", description: "Reads a sealed value.", input: z.object({}), tier: "secret" }, () =>
    toolResult({ data: { value: "sealed-value-9" }, details: { vault: "sealed-vault-path" } }),
  );
  app.tool(
    { name: "final_word", description: "Ends the run with a sentence.", input: z.object({ text: z.string() }) },
    ({ text }) => toolResult({ content: [{ type: "text", text }], terminate: true }),
  );
  rt = await testRuntime({ app });
  return rt;
}

const joined = (log: { type: string; text?: string }[], type: string) =>
  log
    .filter((e) => e.type === type)
    .map((e) => e.text)
    .join("");

/** The run's own agent's text of one turn. */
const joinedTurn = (
  log: { type: string; text?: string; turn?: number | null; agent?: string | null }[],
  turn: number,
) =>
  log
    .filter((e) => e.type === "message_delta" && e.turn === turn && !e.agent)
    .map((e) => e.text)
    .join("");

describe("MessageDelta: a token-level chunk of the agent's final answer as it streams", () => {
  it("should stream every turn's text as MessageDelta tagged with its turn, the answer turn's deltas joining to exactly MessageFinal.text", async () => {
    const r = await setup();
    useScript(r.agents, "s", [
      { text: "Let me check that.", toolCalls: [{ toolName: "calculate", input: { op: "multiply", a: 6, b: 7 } }] },
      { text: "Here is the answer: 42." },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "6 times 7?", toolNames: ["calculate"], llmProvider: "s" });
    const final = ofType(log, "message_final")[0];
    expect(final).toMatchObject({ text: "Here is the answer: 42.", turn: 2 });
    expect(joinedTurn(log, 1)).toBe("Let me check that.");
    expect(joinedTurn(log, 2)).toBe(final.text);
    expect(ofType(log, "intermediate_delta")).toEqual([]);
    // Turn 1 is settled by its ToolCallStep; turn 2 by the terminal naming it.
    const kinds = log.map((e) => (e.type === "message_delta" ? `delta${e.turn}` : e.type));
    expect(kinds.lastIndexOf("delta1")).toBeLessThan(kinds.indexOf("tool_call_step"));
    expect(kinds.indexOf("delta2")).toBeGreaterThan(kinds.indexOf("tool_result_step"));
  });

  it("should keep the model's token cuts of the answer (several deltas, not one block)", async () => {
    const r = await setup();
    useScript(r.agents, "s", [{ text: "one two three four" }]);
    const { log } = await runToEnd(r.agents, { userMessage: "count", llmProvider: "s" });
    expect(ofType(log, "message_delta").length).toBeGreaterThan(1);
    expect(joined(log, "message_delta")).toBe("one two three four");
    expect(ofType(log, "message_final")[0].turn).toBe(1);
    expect(ofType(log, "intermediate_delta")).toEqual([]);
  });

  it("should stream the text of a terminating tool's answer as one MessageDelta of a new turn, which the MessageFinal names", async () => {
    const r = await setup();
    useScript(r.agents, "s", [
      { text: "Finishing.", toolCalls: [{ toolName: "final_word", input: { text: "All done." } }] },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "finish", toolNames: ["final_word"], llmProvider: "s" });
    expect(ofType(log, "message_final")[0]).toMatchObject({ text: "All done.", turn: 2 });
    expect(joinedTurn(log, 1)).toBe("Finishing.");
    expect(ofType(log, "message_delta").filter((d) => d.turn === 2)).toEqual([
      expect.objectContaining({ text: "All done." }),
    ]);
  });

  it("should scrub a secret result the model repeats in the text beside its tool calls, as in its answer", async () => {
    const r = await setup();
    useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "vault_read", input: { name: "db" } }] },
      { text: "I read s3cr3t-for-db, now echoing.", toolCalls: [{ toolName: "echo", input: { text: "ok" } }] },
      { text: "Done with s3cr3t-for-db." },
    ]);
    const { log } = await runToEnd(
      r.agents,
      { userMessage: "read", toolNames: ["vault_read", "echo"], llmProvider: "s" },
      as("ADMIN"),
    );
    expect(JSON.stringify(log)).not.toContain("s3cr3t-for-db");
    expect(joinedTurn(log, 2)).toBe("I read [redacted], now echoing.");
    expect(joinedTurn(log, 3)).toBe("Done with [redacted].");
    expect(ofType(log, "message_final")[0]).toMatchObject({ text: "Done with [redacted].", turn: 3 });
  });
});

describe("ToolResultStep: the value one tool call returned; result is passed through untouched", () => {
  it("should carry the tool's content blocks untouched and its details beside them (seed 001: details are facts the model does not read)", async () => {
    const r = await setup();
    const model = useScript(r.agents, "s", [
      { toolCalls: [{ toolName: "read_lines", input: { path: "/etc/motd" } }] },
      { text: "Two lines." },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "read", toolNames: ["read_lines"], llmProvider: "s" });
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({
      isError: false,
      result: [
        { type: "text", text: "line 1\nline 2" },
        { type: "json", data: { lines: 2 } },
      ],
      details: { path: "/etc/motd", range: [1, 2], matches: 0 },
    });
    expect(JSON.stringify(model.seen[1].prompt)).not.toContain("matches");
  });

  it("should carry a returned value as it is, and null details when the tool declared none", async () => {
    const r = await setup();
    useScript(r.agents, "s", [
      {
        toolCalls: [
          { toolName: "slow", input: { label: "a", ms: 1 } },
          { toolName: "echo", input: { text: "hi" } },
        ],
      },
      { text: "ok" },
    ]);
    const { log } = await runToEnd(r.agents, { userMessage: "go", toolNames: ["slow", "echo"], llmProvider: "s" });
    expect(ofType(log, "tool_result_step").map((e) => [e.result, e.details])).toEqual([
      [{ label: "a" }, null],
      ["hi", null],
    ]);
  });

  it("should keep a secret-tier tool's result and details redacted", async () => {
    const r = await setup();
    useScript(r.agents, "s", [{ toolCalls: [{ toolName: "sealed_read", input: {} }] }, { text: "read" }]);
    const { log } = await runToEnd(
      r.agents,
      { userMessage: "go", toolNames: ["sealed_read"], llmProvider: "s" },
      as("ADMIN"),
    );
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({ result: "[redacted]", details: "[redacted]" });
    expect(JSON.stringify(log)).not.toMatch(/sealed-value-9|sealed-vault-path/);
  });
});

describe("InterruptFinal: interrupt_id is the graph interrupt id (echoed back when resuming)", () => {
  async function interrupted() {
    const r = await setup();
    useScript(r.agents, "s", [{ toolCalls: [{ toolName: "echo", input: { text: "gated" } }] }, { text: "Echoed." }]);
    const { started, log } = await runToEnd(r.agents, {
      userMessage: "echo",
      toolNames: ["echo"],
      interruptOn: { echo: true },
      llmProvider: "s",
    });
    const [interrupt] = ofType(log, "interrupt_final");
    return { r, threadId: started.threadId, pausedRunId: started.runId, interruptId: interrupt.interruptId };
  }

  it("should accept a resume that echoes the interruptId, and echo it on the resumed calls", async () => {
    const { r, threadId, interruptId } = await interrupted();
    const { log } = await runToEnd(r.agents, { threadId, resume: { interruptId, decisions: [{ type: "approve" }] } });
    expect(ofType(log, "tool_call_step")).toEqual([
      expect.objectContaining({ tool: "echo", resumedInterruptId: interruptId }),
    ]);
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({ result: "gated", isError: false });
    expect(types(log).at(-1)).toBe("message_final");
  });

  it("should refuse a resume naming a stale interruptId with CONFLICT, changing nothing", async () => {
    const { r, threadId, pausedRunId, interruptId } = await interrupted();
    await expect(
      r.agents.start({
        options: { threadId, resume: { interruptId: "not-the-pending-one", decisions: [{ type: "approve" }] } },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining(`is not the pending interrupt of this thread (${interruptId})`),
      issues: [{ path: "/resume/interruptId", message: "is stale" }],
    });
    expect((await r.agents.store.get(pausedRunId))?.status).toBe("INTERRUPTED");
    expect(await r.db.agentRun.count({ where: { threadId } })).toBe(1);
    await expect(
      r.agents.start({
        options: { threadId, resume: { interruptId: 7, decisions: [{ type: "approve" }] } },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/resume/interruptId", message: "must be a string" }],
    });
    const { log } = await runToEnd(r.agents, { threadId, resume: { interruptId, decisions: [{ type: "approve" }] } });
    expect(types(log).at(-1)).toBe("message_final");
  });

  it("should refuse an interruptId once its interrupt was resumed", async () => {
    const { r, threadId, interruptId } = await interrupted();
    await runToEnd(r.agents, { threadId, resume: { interruptId, decisions: [{ type: "approve" }] } });
    await expect(
      r.agents.start({
        options: { threadId, resume: { interruptId, decisions: [{ type: "approve" }] } },
        caller: as("USER"),
      }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });
});
