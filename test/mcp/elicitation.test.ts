import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { interactionForm } from "../../src/mcp/elicitation.ts";
import type { InteractionRecord } from "../../src/interactions/park.ts";
import { gql, until } from "../graphql/support.ts";
import { connect, startServer, textOf, type McpTestServer } from "./support.ts";

/**
 * Parks as elicitation (docs/mcp.md): a run that parks on interactions asks the client's
 * user through `elicitation/create` when the client declared the capability and has a
 * session; the answer goes through the same answer path as GraphQL's answerInteraction.
 */
let server: McpTestServer;
let key: string;
let reader: string;
const clients: Client[] = [];

beforeAll(async () => {
  const app = new App();
  app.tool(
    {
      name: "approve",
      description: "Ask a person to approve an amount.",
      input: z.object({ amount: z.number() }),
      pauses: true,
      resume: (state, answers) => ({
        amount: (state as { amount: number }).amount,
        approved: (Object.values(answers)[0] as { ok: boolean }).ok,
      }),
    },
    ({ amount }) =>
      park({
        interactions: [
          {
            question: `Approve ${amount}?`,
            answerFormat: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
          },
        ],
        state: { amount },
      }),
  );
  app.tool(
    {
      name: "two_numbers",
      description: "Ask twice, then add the answers.",
      input: z.object({}),
      pauses: true,
      resume: (_state, answers) => ({
        total: Object.values(answers as Record<string, number>).reduce((a, b) => a + b, 0),
      }),
    },
    () =>
      park({
        interactions: [
          { question: "a?", answerFormat: { type: "number" } },
          { question: "b?", answerFormat: { type: "number" } },
        ],
      }),
  );
  app.tool({ name: "pin", description: "Ask for a four-digit PIN.", input: z.object({}), pauses: true }, () =>
    park({ interactions: [{ question: "Your PIN?", answerFormat: { type: "string", pattern: "^[0-9]{4}$" } }] }),
  );
  server = await startServer({ app });
  key = await server.rt.keys.create("mcp-elicit-user", "USER");
  reader = await server.rt.keys.create("mcp-elicit-reader", "READER");
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(() => server?.stop());

/** A client with a session, answering each elicitation with the next reply. */
async function answering(
  replies: (ElicitResult | ((r: ElicitRequest) => Promise<ElicitResult>))[],
  options: { key?: string } = {},
) {
  const asked: ElicitRequest["params"][] = [];
  const { client, transport } = await connect(server.url, {
    key: options.key ?? key,
    onElicit: (request) => {
      asked.push(request.params);
      const next = replies.shift() ?? { action: "cancel" };
      return typeof next === "function" ? next(request) : next;
    },
  });
  expect(transport.sessionId).toBeDefined();
  clients.push(client);
  return { client, asked };
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const runOf = (result: CallToolResult) => server.rt.runs.get(result._meta!["tai42/runId"] as string);

describe("a run that parks, with a client that can be asked", () => {
  it("should ask the interaction's question as a form and resume the run with the accepted answer", async () => {
    const { client, asked } = await answering([{ action: "accept", content: { ok: true } }]);
    const result = await call(client, "approve", { amount: 40 });
    expect(asked).toEqual([
      {
        mode: "form",
        message: "Approve 40?",
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      },
    ]);
    expect(result.structuredContent).toEqual({ amount: 40, approved: true });
    expect(await runOf(result)).toMatchObject({ status: "SUCCEEDED", door: "mcp" });
  });

  it("should ask each interaction of the park in turn, a primitive answerFormat as one field", async () => {
    const { client, asked } = await answering([
      { action: "accept", content: { answer: 2 } },
      { action: "accept", content: { answer: 3 } },
    ]);
    const result = await call(client, "two_numbers");
    expect(asked.map((p) => [p.message, (p as { requestedSchema: unknown }).requestedSchema])).toEqual([
      ["a?", { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] }],
      ["b?", { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] }],
    ]);
    expect(result.structuredContent).toEqual({ total: 5 });
  });

  it("should ask again, saying why, when the answer does not match the answerFormat", async () => {
    const { client, asked } = await answering([
      { action: "accept", content: { answer: "12" } },
      { action: "accept", content: { answer: "1234" } },
    ]);
    const result = await call(client, "pin");
    expect(asked[1].message).toMatch(
      /^Your PIN\?\n\n\(the answer was refused: the answer does not match the interaction's answerFormat: \/: must match pattern/,
    );
    expect(await runOf(result)).toMatchObject({ status: "SUCCEEDED" });
    expect(textOf(result)).toBe("1234");
  });

  it("should stop asking after three refused answers and return the run still parked", async () => {
    const wrong = { action: "accept" as const, content: { answer: "12" } };
    const { client, asked } = await answering([wrong, wrong, wrong, wrong, wrong]);
    const result = await call(client, "pin");
    expect(asked).toHaveLength(3);
    expect(await runOf(result)).toMatchObject({ status: "PARKED" });
  });

  it("should cancel the run when the user declines", async () => {
    const { client } = await answering([{ action: "decline" }]);
    const result = await call(client, "approve", { amount: 1 });
    expect(result).toMatchObject({
      isError: true,
      structuredContent: {
        status: "CANCELLED",
        error: { kind: "CANCELLED", message: "the MCP client declined the interaction" },
      },
    });
    const run = await runOf(result);
    expect(run).toMatchObject({ status: "CANCELLED" });
    expect(await server.rt.interactions.forRun(run!.id)).toEqual([expect.objectContaining({ status: "CANCELLED" })]);
  });

  it("should leave the run parked when the user dismisses the form, answerable later over GraphQL", async () => {
    const { client } = await answering([{ action: "cancel" }]);
    const result = await call(client, "approve", { amount: 9 });
    expect(result.isError).toBeFalsy();
    const outcome = result.structuredContent as {
      runId: string;
      status: string;
      interactions: { id: string; question: string }[];
    };
    expect(outcome).toMatchObject({
      status: "PARKED",
      interactions: [{ question: "Approve 9?", to: "user", answerFormat: { type: "object" } }],
    });
    expect(textOf(result)).toContain("answerInteraction");
    const answered = await gql<{ answerInteraction: { status: string; data: unknown } }>(
      server.app,
      `mutation($id: ID!) { answerInteraction(id: $id, answer: { ok: false }) { status data } }`,
      {
        variables: { id: outcome.interactions[0].id },
        headers: { authorization: `Bearer ${key}` },
      },
    );
    expect(answered.body.data?.answerInteraction).toEqual({
      status: "SUCCEEDED",
      data: { amount: 9, approved: false },
    });
  });

  it("should cancel the parked run when the client cancels the call while the user is being asked", async () => {
    const { client, asked } = await answering([
      (request) => new Promise<never>(() => void request), // the user never answers
    ]);
    const controller = new AbortController();
    const pending = client.callTool({ name: "approve", arguments: { amount: 77 } }, undefined, {
      signal: controller.signal,
    });
    let runId = "";
    await until("the user to be asked", () => asked.some((p) => p.message === "Approve 77?"));
    runId = (await server.rt.db.run.findFirst({
      where: { tool: "approve", status: "PARKED" },
      orderBy: { startedAt: "desc" },
      select: { id: true },
    }))!.id;
    controller.abort("changed my mind");
    await expect(pending).rejects.toThrow();
    await until("the run to be cancelled", async () => (await server.rt.runs.get(runId))?.status === "CANCELLED");
    expect(await server.rt.runs.get(runId)).toMatchObject({
      errorKind: "CANCELLED",
      errorMessage: "the run was cancelled while parked",
    });
  });
});

describe("a run that parks, with a client that cannot be asked", () => {
  it("should return the parked run and its interactions when the client declared no elicitation", async () => {
    const { client } = await connect(server.url, { key });
    clients.push(client);
    const result = await call(client, "approve", { amount: 5 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: "PARKED",
      runId: result._meta!["tai42/runId"],
      interactions: [{ id: expect.any(String), question: "Approve 5?" }],
    });
    expect(await runOf(result)).toMatchObject({ status: "PARKED" });
  });

  it("should not ask a READER, who may not answer interactions", async () => {
    const { client, asked } = await answering([{ action: "accept", content: { ok: true } }], { key: reader });
    const result = await call(client, "approve", { amount: 5 });
    expect(asked).toEqual([]);
    expect(result.structuredContent).toMatchObject({ status: "PARKED" });
  });
});

describe("interaction forms", () => {
  const interaction = (answerFormat: Record<string, unknown> | null): InteractionRecord => ({
    id: "i1",
    runId: "r1",
    tool: "t",
    question: "Q?",
    to: "user",
    answerFormat,
    status: "PENDING",
    expiresAt: null,
    answer: null,
    answeredAt: null,
    callback: false,
    createdAt: new Date().toISOString(),
  });

  it("should keep only what MCP forms allow of a flat object answerFormat", () => {
    const form = interactionForm(
      interaction({
        type: "object",
        properties: {
          when: { type: "string", format: "date", pattern: "x" },
          n: { type: "integer", minimum: 1, multipleOf: 2 },
        },
        additionalProperties: false,
      }),
    );
    expect(form.params.requestedSchema).toEqual({
      type: "object",
      properties: { when: { type: "string", format: "date" }, n: { type: "integer", minimum: 1 } },
    });
    expect(form.answerOf({ when: "2026-01-01", n: 3 })).toEqual({ when: "2026-01-01", n: 3 });
  });

  it("should ask for a JSON value in one text field when the answerFormat is not flat, or absent", () => {
    const nested = interactionForm(interaction({ type: "object", properties: { items: { type: "array" } } }));
    expect(nested.params.requestedSchema.properties.answer).toMatchObject({
      type: "string",
      description: expect.stringContaining("A JSON value matching"),
    });
    expect(nested.answerOf({ answer: '{"items":[1]}' })).toEqual({ items: [1] });
    const free = interactionForm(interaction(null));
    expect(free.answerOf({ answer: "42" })).toBe(42);
    expect(free.answerOf({ answer: "plain words" })).toBe("plain words");
  });
});
