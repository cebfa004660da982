import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { DOORS, RUN_EVENT_TYPES, RUN_STATUSES } from "../../src/dispatch/run-record.ts";
import { ToolError } from "../../src/errors.ts";
import { park } from "../../src/interactions/park.ts";
import { useScript, runToEnd } from "../agent/support.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { gqlClient } from "../helpers/gql.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * Issue 23 finding 1: a known secret equal to a structural word (a status, a door, a role,
 * a tool name, an event type, "true", "null") must never rewrite structure. Each value is
 * made known once — as an anonymous caller's `ctx.redact`ed input, or as an ADMIN preset's
 * `!ENV` value — then runs of every kind by every role, a restart on the same database, and
 * the same again: statuses, tools, doors, roles and event types stay whole, stored and served.
 */
const VALUES = [
  "RUNNING",
  "SUCCEEDED",
  "FAILED",
  "PARKED",
  "graphql",
  "mcp",
  "cli",
  "USER",
  "ADMIN",
  "start",
  "finish",
  "echo",
  "true",
  "null",
];
const ENV_NAME = "STRUCT_VALUE_SECRET";
const FAST = { initialSeconds: 0.01, multiplier: 2, capSeconds: 0.05 };

function app(): App {
  const a = new App();
  a.tool(
    { name: "hush", description: "Redacts its password.", input: z.object({ password: z.string() }), tier: "read" },
    ({ password }, ctx) => {
      ctx.redact(password);
      return { ok: true };
    },
  );
  a.tool({ name: "fail", description: "Always fails.", input: z.object({}), tier: "read" }, () => {
    throw new ToolError("it broke", { kind: "UPSTREAM", retryable: false });
  });
  a.tool(
    {
      name: "flaky",
      description: "Fails once, then succeeds.",
      input: z.object({}),
      tier: "read",
      retry: { maxAttempts: 2, idempotent: true, retryable: true, backoff: FAST },
    },
    (_i, ctx) => {
      if (ctx.attempt === 1) throw new ToolError("try again", { kind: "UNAVAILABLE" });
      return { attempt: ctx.attempt };
    },
  );
  a.tool(
    {
      name: "ask",
      description: "Asks, then answers with the answer.",
      input: z.object({}),
      tier: "read",
      pauses: true,
      resume: (_s, answers) => ({ answers }),
    },
    () => park({ interactions: [{ question: "go?", answerFormat: { type: "boolean" } }] }),
  );
  a.tool(
    { name: "parent", description: "Runs echo as a child.", input: z.object({}), tier: "read" },
    async (_i, ctx) => (await ctx.runTool("echo", { text: "from the parent" })).content,
  );
  return a;
}

const RUN = `id tool status door callerRole errorKind attempts { number errorKind } children { tool status door callerRole } interactions { id status to } events { type run { status tool } }`;
const TOOLS = new Set(["hush", "fail", "flaky", "ask", "parent", "echo", "envy"]);
const ROLES = new Set(["READER", "USER", "ADMIN"]);
const KINDS = new Set([null, "UPSTREAM", "UNAVAILABLE"]);

interface Keys {
  admin: string;
  user: string;
  reader: string;
}

describe("a known secret equal to a structural word rewrites no status, tool, door, role or event type (issue 23 finding 1)", () => {
  const open: TestRuntime[] = [];
  const drops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    delete process.env[ENV_NAME];
    for (const rt of open.splice(0)) await rt.close();
    for (const drop of drops.splice(0)) await drop();
  });

  const start = async (url: string) => {
    const rt = await testRuntime({ app: app(), databaseUrl: url, env: { TAI_ANONYMOUS_ROLE: "USER" } });
    open.push(rt);
    return rt;
  };

  /** Every GraphQL answer: no errors (no "Unexpected error."), and its data. */
  const call = async (
    gql: ReturnType<typeof gqlClient>,
    query: string,
    variables: Record<string, unknown>,
    key?: string,
  ) => {
    const r = await gql(query, variables, key);
    expect(r.text).not.toContain("Unexpected error");
    expect(r.errors, r.text).toBeUndefined();
    return r.data!;
  };
  const dispatch = async (
    gql: ReturnType<typeof gqlClient>,
    tool: string,
    input: Record<string, unknown>,
    key?: string,
  ) =>
    (
      await call(
        gql,
        `mutation($t: String!, $i: JSONObject!) { dispatch(input: { tool: $t, input: $i }) { ${RUN} } }`,
        { t: tool, i: input },
        key,
      )
    ).dispatch;

  /** A plain, a failing, a retried, a parked-then-answered and a parent run, by every role; each checked as served. */
  async function everyKind(rt: TestRuntime, keys: Keys) {
    const gql = gqlClient(rt);
    for (const [key, role] of [
      [keys.reader, "READER"],
      [keys.user, "USER"],
      [keys.admin, "ADMIN"],
      [undefined, "USER"],
    ] as const) {
      const base = { door: "graphql", callerRole: role };
      expect(await dispatch(gql, "echo", { text: "hi" }, key)).toMatchObject({
        ...base,
        tool: "echo",
        status: "SUCCEEDED",
        events: [{ type: "RUN_STARTED" }, { type: "RUN_FINISHED" }],
      });
      expect(await dispatch(gql, "fail", {}, key)).toMatchObject({
        ...base,
        tool: "fail",
        status: "FAILED",
        errorKind: "UPSTREAM",
      });
      expect(await dispatch(gql, "flaky", {}, key)).toMatchObject({
        ...base,
        tool: "flaky",
        status: "SUCCEEDED",
        attempts: [{ number: 1, errorKind: "UNAVAILABLE" }, { number: 2 }],
        events: [{ type: "RUN_STARTED" }, { type: "ATTEMPT_FAILED" }, { type: "RUN_FINISHED" }],
      });
      const parked = await dispatch(gql, "ask", {}, key);
      expect(parked).toMatchObject({
        ...base,
        tool: "ask",
        status: "PARKED",
        interactions: [{ status: "PENDING", to: "user" }],
      });
      const answered = await call(
        gql,
        `mutation($id: ID!) { answerInteraction(id: $id, answer: true) { status tool door } }`,
        { id: parked.interactions[0].id },
        keys.admin,
      );
      expect(answered.answerInteraction).toEqual({ status: "SUCCEEDED", tool: "ask", door: "graphql" });
      expect(await dispatch(gql, "parent", {}, key)).toMatchObject({
        ...base,
        tool: "parent",
        status: "SUCCEEDED",
        children: [{ tool: "echo", status: "SUCCEEDED", door: "extension", callerRole: role }],
      });
    }
  }

  /**
   * An agent run through the scripted model that calls echo, then answers: its stream's types and its stored status
   * whole.
   */
  async function agentRun(rt: TestRuntime) {
    useScript(rt.agents, "s", [{ toolCalls: [{ toolName: "echo", input: { text: "hi" } }] }, { text: "all done" }]);
    const { started, log } = await runToEnd(
      rt.agents,
      { userMessage: "go", llmProvider: "s", toolNames: ["echo"] },
      as("USER"),
    );
    expect(log.map((e) => e.type).filter((t) => t !== "message_delta" && t !== "run_usage")).toEqual([
      "tool_call_step",
      "tool_result_step",
      "message_final",
    ]);
    expect((await rt.agents.store.get(started.runId))!.status).toBe("SUCCEEDED");
    const stored = await rt.db.agentEvent.findMany({ where: { runId: started.runId } });
    expect(stored.every((e) => /^[a-z_]+$/.test(e.type) && (e.payload as { type: string }).type === e.type)).toBe(true);
  }

  /** Every stored run, attempt, event and interaction has whole structure; `runs` and `run(id)` serve it to ADMIN. */
  async function intact(rt: TestRuntime, keys: Keys) {
    const runs = await rt.db.run.findMany();
    expect(runs.length).toBeGreaterThan(20);
    for (const r of runs) {
      expect(RUN_STATUSES).toContain(r.status);
      expect(r.status, `run ${r.id} of ${r.tool}`).not.toBe("RUNNING");
      expect(TOOLS).toContain(r.tool);
      expect(DOORS).toContain(r.door);
      expect(ROLES).toContain(r.callerRole);
      expect(r.tier).toBe("read");
    }
    for (const e of await rt.db.runEvent.findMany()) {
      expect(RUN_EVENT_TYPES).toContain(e.type);
      expect(TOOLS).toContain(e.tool);
      const snapshot = e.snapshot as { status: string; door: string; tool: string };
      expect([
        RUN_STATUSES.includes(snapshot.status as never),
        DOORS.includes(snapshot.door as never),
        TOOLS.has(snapshot.tool),
      ]).toEqual([true, true, true]);
    }
    for (const a of await rt.db.attempt.findMany()) expect(KINDS).toContain(a.errorKind);
    for (const i of await rt.db.interaction.findMany())
      expect([i.status, i.to, i.tool]).toEqual(["ANSWERED", "user", "ask"]);
    const gql = gqlClient(rt);
    const listed = (
      await call(
        gql,
        `{ runs(first: 100) { edges { node { id tool status door callerRole errorKind attempts { errorKind } } } } }`,
        {},
        keys.admin,
      )
    ).runs.edges.map((e: { node: { id: string } }) => e.node);
    expect(listed).toHaveLength(runs.length);
    const one = (await call(gql, `query($id: ID!) { run(id: $id) { ${RUN} } }`, { id: runs[0].id }, keys.admin)).run;
    expect(one).toMatchObject({ id: runs[0].id, tool: runs[0].tool, status: runs[0].status, door: runs[0].door });
  }

  /** Makes `value` a known secret: an anonymous caller's redacted input, or an ADMIN preset's `!ENV` value. */
  async function teach(rt: TestRuntime, keys: Keys, source: "redact" | "env", value: string) {
    const gql = gqlClient(rt);
    if (source === "redact") {
      expect(await dispatch(gql, "hush", { password: value })).toMatchObject({
        tool: "hush",
        status: "SUCCEEDED",
        callerRole: "USER",
        door: "graphql",
      });
      return;
    }
    await call(
      gql,
      `mutation($k: JSONObject!) { createPreset(input: { name: "envy", description: "echo a configured value", baseTool: "echo", fixedKwargs: $k }) { name } }`,
      { k: { text: `!ENV ${ENV_NAME}` } },
      keys.admin,
    );
    expect(await dispatch(gql, "envy", {}, keys.admin)).toMatchObject({
      tool: "envy",
      status: "SUCCEEDED",
      callerRole: "ADMIN",
      door: "graphql",
    });
  }

  const cases = VALUES.flatMap((value) => (["redact", "env"] as const).map((source) => ({ value, source })));
  it.each(cases)(
    "should keep every run's structure whole after $value was known as a secret ($source), across a restart",
    async ({ value, source }) => {
      process.env[ENV_NAME] = value;
      const db = await freshDatabase();
      drops.push(db.drop);
      const first = await start(db.url);
      const keys = {
        admin: await first.keys.create("admin", "ADMIN"),
        user: await first.keys.create("user", "USER"),
        reader: await first.keys.create("reader", "READER"),
      };
      await teach(first, keys, source, value);
      await everyKind(first, keys);
      await agentRun(first);
      await intact(first, keys);
      await first.close();
      open.splice(open.indexOf(first), 1);

      const second = await start(db.url);
      await intact(second, keys);
      await everyKind(second, keys);
      await agentRun(second);
      await intact(second, keys);
    },
  );
});
