import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../../src/app.ts";
import { mcpKind } from "../../../src/connectors/mcp/mcp-kind.ts";
import type { McpConnection } from "../../../src/connectors/mcp/mcp-connection.ts";
import type { UpstreamCall, UpstreamTool } from "../../../src/connectors/connector-kind.ts";
import { expiringStore } from "../../../src/db/expiring-store.ts";
import type { ToolContext } from "../../../src/tools/definition.ts";
import { until } from "../../graphql/support.ts";
import { redisTestUrl } from "../../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { everythingStdio, mcpEnv, toolNamed } from "./support.ts";

/**
 * The kind under tai42's real dispatcher, before the connector core lands: an app's
 * tools stand where the core's surface entries will, each calling this runtime's own
 * connection to server-everything (`call`, and `resume` for parks), as a connector entry does.
 */
interface Instance {
  rt: TestRuntime;
  conn: () => Promise<McpConnection>;
}

let tools: UpstreamTool[];
const instances: Instance[] = [];

function upstreamCallOf(ctx: ToolContext, timeoutSeconds: number): UpstreamCall {
  return { ctx, idempotencyKey: ctx.runId, idempotent: false, timeoutMs: timeoutSeconds * 1000 };
}

async function instance(databaseUrl?: string): Promise<Instance> {
  const app = new App();
  let opened: Promise<McpConnection> | undefined;
  const me = {} as Instance;
  me.conn = () =>
    (opened ??= mcpKind
      .connect(
        mcpEnv(everythingStdio(), { store: expiringStore(me.rt.db), bus: me.rt.bus, instanceId: me.rt.instanceId }).env,
      )
      .then((c) => c as McpConnection));
  for (const [name, timeoutSeconds] of [
    ["trigger-elicitation-request", 20],
    ["trigger-long-running-operation", 2],
  ] as const) {
    app.tool(
      {
        name: `everything_${name.replaceAll("-", "_")}`,
        description: `server-everything's ${name}`,
        input: z.looseObject({}),
        pauses: true,
        timeoutSeconds,
        resume: async (state, answers, ctx) =>
          (await me.conn()).resume(toolNamed(tools, name), state, answers, upstreamCallOf(ctx, timeoutSeconds)),
      },
      async (input, ctx) => (await me.conn()).call(toolNamed(tools, name), input, upstreamCallOf(ctx, timeoutSeconds)),
    );
  }
  me.rt = await testRuntime({ app, config: { redisUrl: redisTestUrl() }, ...(databaseUrl ? { databaseUrl } : {}) });
  instances.push(me);
  return me;
}

let a: Instance;
let b: Instance;

beforeAll(async () => {
  a = await instance();
  b = await instance(a.rt.config.databaseUrl);
  tools = (await (await a.conn()).list()).tools;
}, 60_000);

afterAll(async () => {
  for (const i of instances.reverse()) {
    await (await i.conn().catch(() => null))?.close();
    await i.rt.dispose();
  }
});

const dispatch = (i: Instance, tool: string, input: Record<string, unknown> = {}) =>
  i.rt.dispatcher.run({ tool, input, caller: as("USER"), door: "runtime" });
const text = (run: { content: Array<{ text?: string }> }) => run.content.map((c) => c.text).join("\n");

describe("an MCP upstream behind tai42's dispatcher", () => {
  it("parks a run on the upstream's question, answered on a second runtime over the same database, and resumes it to SUCCEEDED", async () => {
    const parked = await dispatch(a, "everything_trigger_elicitation_request");
    expect(parked.status).toBe("PARKED");
    const [question] = await a.rt.interactions.forRun(parked.id);
    expect(question).toMatchObject({
      question: "Please provide inputs for the following fields:",
      to: "user",
      answerFormat: expect.objectContaining({ required: ["name"] }),
    });
    const resumed = await b.rt.interactions.answer(question!.id, { name: "Ada Lovelace", check: true }, as("USER"));
    expect(resumed.status).toBe("SUCCEEDED");
    expect(text(resumed)).toMatch(/- Name: Ada Lovelace/);
    expect((await a.conn()).pending.size).toBe(0);
    expect((await a.rt.runs.get(parked.id))!.status).toBe("SUCCEEDED");
  });

  it("answers the upstream's question with cancel when the parked run is cancelled, and forgets the call", async () => {
    const parked = await dispatch(a, "everything_trigger_elicitation_request");
    expect(parked.status).toBe("PARKED");
    expect((await a.conn()).pending.size).toBe(1);
    const cancelled = await b.rt.dispatcher.cancel(parked.id);
    expect(cancelled?.status).toBe("CANCELLED");
    await until("the holder forgets the parked call", async () => (await a.conn()).pending.size === 0);
  });

  it("stores the upstream's progress as RUN_PROGRESS events", async () => {
    const run = await dispatch(a, "everything_trigger_long_running_operation", { duration: 0.9, steps: 3 });
    expect(run.status).toBe("SUCCEEDED");
    const progress = (await a.rt.runs.events({ runId: run.id }, 0)).filter((e) => e.type === "RUN_PROGRESS");
    expect(progress.length).toBeGreaterThanOrEqual(1);
  });

  it("fails a run TIMEOUT when the upstream does not answer within the entry's timeout", async () => {
    const run = await dispatch(a, "everything_trigger_long_running_operation", { duration: 30, steps: 1 });
    expect(run.status).toBe("FAILED");
    expect(run.errorKind).toBe("TIMEOUT");
    expect((await a.conn()).pending.size).toBe(0);
  });

  it("cancels a run mid-call: the run is CANCELLED and the upstream request dropped", async () => {
    let runId = "";
    const done = a.rt.dispatcher.run({
      tool: "everything_trigger_long_running_operation",
      input: { duration: 1.8, steps: 18 },
      caller: as("USER"),
      door: "runtime",
      onRun: (id) => (runId = id),
    });
    await until("the call is in flight", async () => (await a.conn()).pending.size === 1);
    await a.rt.dispatcher.cancel(runId);
    expect((await done).status).toBe("CANCELLED");
    expect((await a.conn()).pending.size).toBe(0);
  });
});
