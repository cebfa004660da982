import { afterEach, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { gql, sseReader, until } from "../graphql/support.ts";
import { randomUUID } from "node:crypto";
import { redisTestUrl, requireRedis } from "../helpers/databases.ts";
import { as as callerAs, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { cancelApp, inFlight, toolRunsOf, waitThenAnswer, type Calls } from "./cancel-support.ts";
import { useScript } from "./support.ts";

const STREAM = `subscription($input: AgentRunInput!) { agentStream(input: $input) { __typename } }`;
const CANCEL = `mutation($id: ID!) { cancelAgentRun(id: $id) { id status errorKind errorMessage } }`;

let rt: TestRuntime | undefined;
let peer: TestRuntime | undefined;
afterEach(async () => {
  await peer?.dispose();
  await rt?.dispose();
  rt = peer = undefined;
});

describe("cancelAgentRun: cancelling an agent run over GraphQL stops its tools", () => {
  it("should abort the run's tool in flight, end the run CANCELLED, and end its stream with AGENT_RUN_FAILED kind CANCELLED; another caller's cancel is NOT_FOUND", async () => {
    const calls: Calls = { started: [], aborted: [] };
    const r = (rt = await testRuntime({ app: cancelApp(calls) }));
    const server: TaiServer = buildApp(r);
    const owner = await r.keys.create("cancel-owner", "USER");
    const other = await r.keys.create("cancel-other", "USER");
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    useScript(r.agents, "s", waitThenAnswer);

    const res = await server.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...as(owner) },
      body: JSON.stringify({
        query: STREAM,
        variables: { input: { userMessage: "wait", llmProvider: "s", toolNames: ["wait_8s"] } },
      }),
    });
    const reader = sseReader(res);
    await inFlight(r, calls);
    const [runId] = r.agents.runningIds();

    const refused = await gql(server, CANCEL, { variables: { id: runId }, headers: as(other) });
    expect(refused.body.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    expect((await r.agents.store.get(runId))!.status).toBe("RUNNING");
    expect(calls.aborted).toEqual([]);

    const t0 = performance.now();
    const cancelled = await gql<{ cancelAgentRun: Record<string, unknown> }>(server, CANCEL, {
      variables: { id: runId },
      headers: as(owner),
    });
    expect(cancelled.body.errors).toBeUndefined();
    expect(cancelled.body.data!.cancelAgentRun).toEqual({
      id: runId,
      status: "CANCELLED",
      errorKind: "CANCELLED",
      errorMessage: "the agent run was cancelled",
    });
    expect(calls.aborted).toHaveLength(1);
    expect(calls.aborted[0] - t0).toBeLessThan(1000);
    expect((await toolRunsOf(r)).map((t) => t.status)).toEqual(["CANCELLED"]);

    await until("the stream to end", () => reader.ended(), 10_000);
    const nexts = reader.nexts<{ agentStream: { __typename: string } }>();
    expect(nexts.at(-1)!.errors?.[0].extensions).toMatchObject({ code: "AGENT_RUN_FAILED", kind: "CANCELLED", runId });
    expect(nexts.flatMap((n) => (n.data?.agentStream ? [n.data.agentStream.__typename] : []))).not.toContain(
      "MessageFinal",
    );

    // An ended run is returned as it is.
    const again = await gql<{ cancelAgentRun: Record<string, unknown> }>(server, CANCEL, {
      variables: { id: runId },
      headers: as(owner),
    });
    expect(again.body.data!.cancelAgentRun).toMatchObject({ status: "CANCELLED" });
  });
});

const redis = await requireRedis();

describe.runIf(redis)("cancelAgentRun on another instance than the one running the run", () => {
  it("should reach the instance that runs it, abort its tool and end it CANCELLED", async () => {
    const calls: Calls = { started: [], aborted: [] };
    const config = { redisUrl: redisTestUrl(), redisPrefix: `tai42-test-${randomUUID()}:` };
    const a = (rt = await testRuntime({ app: cancelApp(calls), config }));
    const b = (peer = await testRuntime({ app: cancelApp(calls), config, databaseUrl: a.config.databaseUrl }));
    useScript(a.agents, "s", waitThenAnswer);
    const caller = callerAs("USER");
    const started = await a.agents.start({
      options: { userMessage: "wait", llmProvider: "s", toolNames: ["wait_8s"] },
      caller,
    });
    await inFlight(a, calls);
    // The instances hear each other (a Redis subscription is made once its connection is ready).
    let heard = false;
    const unlisten = a.bus.listen("agentRunCancel", ({ runId }) => void (heard ||= runId === "probe"));
    await until("the bus to carry agentRunCancel", () => (b.bus.publish("agentRunCancel", { runId: "probe" }), heard));
    unlisten();

    const t0 = performance.now();
    expect(b.agents.cancel(started.runId)).toBe(false);
    const run = await b.agents.cancelFor(started.runId, caller);
    expect(run.status).toBe("CANCELLED");
    expect(calls.aborted).toHaveLength(1);
    expect(calls.aborted[0] - t0).toBeLessThan(1000);
    expect((await toolRunsOf(a)).map((t) => t.status)).toEqual(["CANCELLED"]);
  });
});
