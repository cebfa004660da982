import { afterEach, describe, expect, it } from "vitest";
import type { ScriptView, ScriptedTurn } from "../../src/agent/providers/scripted-model.ts";
import { gqlClient } from "../helpers/gql.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { ofType, runToEnd, useScript } from "./support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const TEMPLATE =
  '{"type":"object","properties":{"topic":{"const":"{{topic}}"},"count":{"type":"integer","maximum":{{max}}}},"required":["topic","count"]}';

describe("SubAgentSpec.response_format named by stored id, rendered/parsed to its schema at the point of use", () => {
  it("should render a stored response format with the run's variables and give the sub-agent's structured answer to the parent", async () => {
    rt = await testRuntime();
    await rt.agents.responseFormats.put(
      { name: "topic-count", description: "A topic and a count", template: TEMPLATE },
      as("ADMIN"),
    );
    const shown: (Record<string, unknown> | null)[] = [];
    useScript(rt.agents, "s", (view: ScriptView): ScriptedTurn => {
      const sub = (view.prompt[0].content as string).startsWith("You count");
      if (sub) {
        shown.push(view.responseFormat);
        return { text: JSON.stringify({ topic: "bees", count: 3 }) };
      }
      return view.prompt.at(-1)?.role === "tool"
        ? { text: "done" }
        : { toolCalls: [{ toolName: "counter", input: { task: "count bees" } }] };
    });
    const { log } = await runToEnd(rt.agents, {
      userMessage: "?",
      llmProvider: "s",
      variables: { topic: "bees", max: 10 },
      subagents: [
        { name: "counter", description: "Counts", systemPrompt: "You count.", responseFormatId: "topic-count" },
      ],
    });
    expect(shown[0]).toMatchObject({ properties: { topic: { const: "bees" }, count: { maximum: 10 } } });
    expect(ofType(log, "tool_result_step")[0]).toMatchObject({
      tool: "counter",
      isError: false,
      result: { topic: "bees", count: 3 },
    });
  });

  it("should refuse an unknown id, a missing variable, and both forms at once, naming each path, and store nothing", async () => {
    rt = await testRuntime();
    await rt.agents.responseFormats.put(
      { name: "topic-count", description: "A topic and a count", template: TEMPLATE },
      as("ADMIN"),
    );
    const start = (spec: Record<string, unknown>, variables?: Record<string, unknown>) =>
      rt!.agents.start({
        options: { userMessage: "?", variables, subagents: [{ name: "c", description: "d", ...spec } as never] },
        caller: as("USER"),
      });
    await expect(start({ responseFormatId: "nope" })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/subagents/0/responseFormatId", message: 'no stored response format named "nope"' }],
    });
    await expect(start({ responseFormatId: "topic-count" }, { topic: "bees" })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [
        {
          path: "/subagents/0/responseFormatId",
          message: "the placeholder {{max}} has no value (pass it in variables)",
        },
      ],
    });
    await expect(start({ responseFormatId: "topic-count", responseFormat: { type: "object" } })).rejects.toMatchObject({
      issues: [{ path: "/subagents/0/responseFormatId", message: "give responseFormat or responseFormatId, not both" }],
    });
    expect(await rt.db.agentRun.count()).toBe(0);
  });
});

describe("a stored response format's variables are values, never structure", () => {
  it("should keep a variable that holds quotes inside its string, so a caller's variables cannot rewrite an ADMIN's schema", async () => {
    rt = await testRuntime();
    await rt.agents.responseFormats.put(
      {
        name: "who",
        description: "Says who",
        template:
          '{"type":"object","properties":{"x":{"type":"string","description":"{{who}}"},"n":{"type":"integer","maximum":{{max}}}}}',
      },
      as("ADMIN"),
    );
    const issues: { path: string; message: string }[] = [];
    const who = 'a", "enum": ["pwned"], "z": "';
    const schema = await rt.agents.responseFormats.resolve("who", { who, max: 3 }, "/p", issues);
    expect(issues).toEqual([]);
    expect(schema).toEqual({
      type: "object",
      properties: { x: { type: "string", description: who }, n: { type: "integer", maximum: 3 } },
    });
  });
});

describe("stored response formats: anyone reads them, only an ADMIN writes them", () => {
  it("should store, list and delete a response format over GraphQL, and refuse a non-ADMIN or a template that is not JSON", async () => {
    rt = await testRuntime();
    const gql = gqlClient(rt);
    const admin = await rt.keys.create("rf-admin", "ADMIN");
    const user = await rt.keys.create("rf-user", "USER");
    const PUT = `mutation($i: ResponseFormatInput!) { putResponseFormat(input: $i) { name template } }`;
    const ok = await gql(PUT, { i: { name: "topic-count", description: "A topic", template: TEMPLATE } }, admin);
    expect(ok.data?.putResponseFormat).toEqual({ name: "topic-count", template: TEMPLATE });
    expect(
      (await gql(PUT, { i: { name: "x", description: "d", template: "{}" } }, user)).errors?.[0].extensions?.code,
    ).toBe("FORBIDDEN");
    const bad = await gql(PUT, { i: { name: "broken", description: "d", template: '{"type": ' } }, admin);
    expect(bad.errors?.[0].extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "/template" }] });
    const notSchema = await gql(
      PUT,
      { i: { name: "broken", description: "d", template: '{"type": "no-such-type"}' } },
      admin,
    );
    expect(notSchema.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect((await gql(`{ responseFormats { name } }`, {}, user)).data?.responseFormats).toEqual([
      { name: "topic-count" },
    ]);
    expect(
      (await gql(`mutation { deleteResponseFormat(name: "topic-count") }`, {}, admin)).data?.deleteResponseFormat,
    ).toBe(true);
    expect(
      (await gql(`mutation { deleteResponseFormat(name: "topic-count") }`, {}, admin)).errors?.[0].extensions?.code,
    ).toBe("NOT_FOUND");
  });
});
