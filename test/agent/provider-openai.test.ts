import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { openAICompatibleProvider } from "../../src/agent/providers/openai-compatible.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { ofType, runToEnd, types } from "./support.ts";

/** A canned reply of the fake endpoint: SSE chunks, or an HTTP error. */
type Reply = { chunks: unknown[] } | { status: number; body: unknown };

/**
 * A local OpenAI chat-completions server: it records each request and answers with the
 * next canned reply, streamed as `data: {...}` lines ending with `data: [DONE]`.
 */
async function fakeOpenAI(replies: Reply[]): Promise<{
  url: string;
  requests: { headers: IncomingMessage["headers"]; body: Record<string, any> }[];
  server: Server;
}> {
  const requests: { headers: IncomingMessage["headers"]; body: Record<string, any> }[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    requests.push({ headers: req.headers, body: JSON.parse(raw) });
    const reply = replies[Math.min(requests.length - 1, replies.length - 1)];
    if ("status" in reply) {
      res.writeHead(reply.status, { "content-type": "application/json" });
      return res.end(JSON.stringify(reply.body));
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const c of reply.chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
    res.end("data: [DONE]\n\n");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, server };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "fake-gpt",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usage = (prompt: number, completion: number) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "fake-gpt",
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});

const TOOL_TURN: Reply = {
  chunks: [
    chunk({ role: "assistant", content: "" }),
    chunk({ reasoning_content: "Multiply, " }),
    chunk({ reasoning_content: "then check the time." }),
    chunk({ content: "Let me " }),
    chunk({ content: "compute." }),
    chunk({
      tool_calls: [{ index: 0, id: "call_abc", type: "function", function: { name: "calculate", arguments: "" } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"op":"mul' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'tiply","a":6,' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"b":7}' } }] }),
    chunk({
      tool_calls: [{ index: 1, id: "call_def", type: "function", function: { name: "echo", arguments: '{"te' } }],
    }),
    chunk({ tool_calls: [{ index: 1, function: { arguments: 'xt":"hi"}' } }] }),
    chunk({}, "tool_calls"),
    usage(50, 20),
  ],
};
const ANSWER_TURN: Reply = {
  chunks: [
    chunk({ role: "assistant", content: "The answer " }),
    chunk({ content: "is 42." }),
    chunk({}, "stop"),
    usage(80, 10),
  ],
};

describe("the OpenAI-compatible provider against a local chat-completions server", () => {
  let rt: TestRuntime | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await rt?.dispose();
    await new Promise((r) => (server ? server.close(r) : r(null)));
    rt = server = undefined;
  });

  async function setup(replies: Reply[], url?: string) {
    const fake = await fakeOpenAI(replies);
    server = fake.server;
    rt = await testRuntime();
    rt.agents.providers.register(
      openAICompatibleProvider({
        TAI_LLM_BASE_URL: url ?? fake.url,
        TAI_LLM_API_KEY: "sk-test",
        TAI_LLM_MODEL: "fake-gpt",
      }),
    );
    return { rt, requests: fake.requests };
  }

  it("should stream deltas, reasoning and tool calls whose arguments arrive in several chunks, and sum the usage", async () => {
    const { rt: r, requests } = await setup([TOOL_TURN, ANSWER_TURN]);
    const { log } = await runToEnd(r.agents, {
      userMessage: "6 times 7, and echo hi",
      toolNames: ["calculate", "echo"],
      llmProvider: "openai-compatible",
    });
    expect(types(log)).toEqual([
      "reasoning_step",
      "message_delta",
      "message_delta",
      "tool_call_step",
      "tool_call_step",
      "tool_result_step",
      "tool_result_step",
      "message_delta",
      "message_delta",
      "run_usage",
      "message_final",
    ]);
    expect(ofType(log, "reasoning_step")[0].text).toBe("Multiply, then check the time.");
    expect(ofType(log, "tool_call_step").map((c) => [c.callId, c.tool, c.args])).toEqual([
      ["call_abc", "calculate", { op: "multiply", a: 6, b: 7 }],
      ["call_def", "echo", { text: "hi" }],
    ]);
    expect(ofType(log, "tool_result_step").map((r) => r.result)).toEqual([{ result: 42 }, "hi"]);
    expect(ofType(log, "message_final")[0]).toMatchObject({ text: "The answer is 42.", turn: 2 });
    expect(ofType(log, "message_delta").map((d) => d.turn)).toEqual([1, 1, 2, 2]);
    expect(ofType(log, "run_usage")[0]).toMatchObject({
      inputTokens: 130,
      outputTokens: 30,
      totalTokens: 160,
      model: "fake-gpt",
    });

    expect(requests).toHaveLength(2);
    const [first, second] = requests;
    expect(first.headers.authorization).toBe("Bearer sk-test");
    expect(first.body).toMatchObject({ model: "fake-gpt", stream: true, stream_options: { include_usage: true } });
    expect(first.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      "calculate",
      "echo",
      "ask_caller",
    ]);
    expect(first.body.tools[0].function.parameters).toMatchObject({
      type: "object",
      properties: { op: { enum: expect.any(Array) } },
    });
    const toolMessages = second.body.messages.filter((m: { role: string }) => m.role === "tool");
    expect(toolMessages.map((m: { tool_call_id: string; content: string }) => [m.tool_call_id, m.content])).toEqual([
      ["call_abc", '{"result":42}'],
      ["call_def", "hi"],
    ]);
  });

  it("should surface an upstream 429 as a clear RATE_LIMITED failure with the provider's message", async () => {
    const { rt: r, requests } = await setup([
      { status: 429, body: { error: { message: "Rate limit reached for requests", type: "rate_limit" } } },
    ]);
    const { log } = await runToEnd(r.agents, {
      userMessage: "hi",
      llmProvider: "openai-compatible",
      llmKwargs: { maxRetries: 0 },
    });
    expect(log).toEqual([
      expect.objectContaining({
        type: "run_failed",
        kind: "RATE_LIMITED",
        message: "the LLM provider failed: HTTP 429 — Rate limit reached for requests",
      }),
    ]);
    expect(requests).toHaveLength(1);
  });

  it("should surface an upstream 500 as UNAVAILABLE after the SDK's own retries", async () => {
    const { rt: r, requests } = await setup([{ status: 500, body: { error: { message: "The server had an error" } } }]);
    const { log } = await runToEnd(r.agents, {
      userMessage: "hi",
      llmProvider: "openai-compatible",
      llmKwargs: { maxRetries: 1 },
    });
    expect(log).toEqual([
      expect.objectContaining({
        type: "run_failed",
        kind: "UNAVAILABLE",
        message: "the LLM provider failed after 2 attempts: HTTP 500 — The server had an error",
      }),
    ]);
    expect(requests).toHaveLength(2);
  });

  it("should surface an unreachable endpoint as a NETWORK failure", async () => {
    const { rt: r } = await setup([ANSWER_TURN], "http://127.0.0.1:1/v1");
    const { log } = await runToEnd(r.agents, {
      userMessage: "hi",
      llmProvider: "openai-compatible",
      llmKwargs: { maxRetries: 0 },
    });
    expect(log).toEqual([expect.objectContaining({ type: "run_failed", kind: "NETWORK" })]);
  });

  it("should refuse a start on the provider when it is not configured, naming the variable", async () => {
    rt = await testRuntime();
    rt.agents.providers.register(openAICompatibleProvider({}));
    await expect(
      rt.agents.start({
        options: { userMessage: "hi", llmProvider: "openai-compatible" },
        caller: { role: "USER", keyName: null, keyId: null },
      }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      message: 'LLM provider "openai-compatible" is not configured: TAI_LLM_BASE_URL is not set',
    });
  });

  it("should pass llmKwargs through to the request and use llmKwargs.model over the env's model", async () => {
    const { rt: r, requests } = await setup([ANSWER_TURN]);
    await runToEnd(r.agents, {
      userMessage: "hi",
      llmProvider: "openai-compatible",
      llmKwargs: { model: "other-model", temperature: 0.2, maxOutputTokens: 64, seed: 7 },
    });
    expect(requests[0].body).toMatchObject({ model: "other-model", temperature: 0.2, max_tokens: 64, seed: 7 });
  });
});
