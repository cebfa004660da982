import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { until } from "../graphql/support.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { cancelApp, inFlight, toolRunsOf, waitThenAnswer, type Calls } from "./cancel-support.ts";
import { useScript } from "./support.ts";

/**
 * Who may cancel an agent run and read its usage, over GraphQL (docs/agent-stream.md §2.5,
 * §4.1): another key (USER or READER) and the anonymous caller get NOT_FOUND for a run they
 * did not start, as for one that does not exist, and nothing changes; an ADMIN cancels it;
 * a paused run is returned unchanged. Runs on the database TAI_TEST_DB selects.
 */

const CANCEL = `mutation($id: ID!) { cancelAgentRun(id: $id) { id status } }`;
const USAGE = "{ inputTokens outputTokens totalTokens runs }";

describe("cancelAgentRun and usage reads by callers who did not start the run", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  let gql: ReturnType<typeof gqlClient>;
  const calls: Calls = { started: [], aborted: [] };
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    rt = await testRuntime({ app: cancelApp(calls), env: { TAI_ANONYMOUS_ROLE: "USER" } });
    server = buildApp(rt);
    gql = gqlClient(rt);
    for (const [name, role] of [
      ["owner", "USER"],
      ["other", "USER"],
      ["reader", "READER"],
      ["admin", "ADMIN"],
    ] as const)
      keys[name] = await rt.keys.create(`rights-${name}`, role);
    useScript(rt.agents, "s", (v) =>
      JSON.stringify(v.prompt).includes("spend")
        ? {
            toolCalls: [{ toolName: "approve_spend", input: { amount: 1 } }],
            usage: { inputTokens: 3, outputTokens: 1 },
          }
        : waitThenAnswer(v),
    );
  });
  afterAll(async () => {
    await rt?.dispose();
  });

  /** Starts a run as `key` over SSE (the run does not belong to its subscription); resolves once it has an id. */
  async function startAs(key: string, userMessage: string): Promise<string> {
    const before = new Set((await rt.agents.store.list({}, 100, undefined, { all: true })).map((r) => r.id));
    void server.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${key}` },
      body: JSON.stringify({
        query: `subscription($input: AgentRunInput!) { agentStream(input: $input) { __typename } }`,
        variables: { input: { userMessage, llmProvider: "s", toolNames: ["wait_8s", "approve_spend"] } },
      }),
    });
    let id = "";
    await until("the run to start", async () => {
      id = (await rt.agents.store.list({}, 100, undefined, { all: true })).find((r) => !before.has(r.id))?.id ?? "";
      return id !== "";
    });
    return id;
  }

  it("should answer another USER's, a READER's and an anonymous cancel NOT_FOUND as for an unknown id, leaving the run and its tool running; an ADMIN's cancels it", async () => {
    const runId = await startAs(keys.owner, "wait");
    await inFlight(rt, calls);
    const unknown = await gql(CANCEL, { id: "no-such-run" }, keys.other);
    for (const key of [keys.other, keys.reader, undefined]) {
      const refused = await gql(CANCEL, { id: runId }, key);
      expect(refused.errors?.map((e) => e.extensions?.code)).toEqual(["NOT_FOUND"]);
      // The refusal reads as the unknown id's: it does not tell that the run exists.
      expect(refused.errors![0].message).toBe(unknown.errors![0].message.replace("no-such-run", runId));
      const read = await gql(`query($id: ID!) { agentRun(id: $id) { usage ${USAGE} } }`, { id: runId }, key);
      expect(read.data).toEqual({ agentRun: null });
    }
    expect((await rt.agents.store.get(runId))!.status).toBe("RUNNING");
    expect(calls.aborted).toEqual([]);

    const cancelled = await gql(CANCEL, { id: runId }, keys.admin);
    expect(cancelled.data).toEqual({ cancelAgentRun: { id: runId, status: "CANCELLED" } });
    expect(calls.aborted).toHaveLength(1);
    expect((await toolRunsOf(rt)).map((t) => t.status)).toEqual(["CANCELLED"]);
  });

  it("should return a suspended run unchanged to its owner's cancel, and hide it and its thread's usage from another key", async () => {
    const runId = await startAs(keys.owner, "spend");
    await until("the run to suspend", async () => (await rt.agents.store.get(runId))?.status === "SUSPENDED");
    const { threadId } = (await rt.agents.store.get(runId))!;

    expect((await gql(CANCEL, { id: runId }, keys.other)).errors?.map((e) => e.extensions?.code)).toEqual([
      "NOT_FOUND",
    ]);
    expect((await gql(CANCEL, { id: runId }, keys.owner)).data).toEqual({
      cancelAgentRun: { id: runId, status: "SUSPENDED" },
    });
    expect((await rt.agents.store.get(runId))!.status).toBe("SUSPENDED");
    expect((await toolRunsOf(rt, "approve_spend"))[0].status).toBe("PARKED");

    const q = `query($t: ID!) { thread(id: $t) { usage ${USAGE} } }`;
    expect((await gql(q, { t: threadId }, keys.other)).data).toEqual({ thread: null });
    expect((await gql(q, { t: threadId }, keys.owner)).data).toEqual({
      thread: { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4, runs: 1 } },
    });
  });

  it("should refuse another key's usage to a non-ADMIN with the same FORBIDDEN whether that key exists or not", async () => {
    const of = (name: string, key?: string) => gql(`{ keyUsage(keyName: "${name}") ${USAGE} }`, {}, key);
    for (const key of [keys.other, keys.reader, undefined]) {
      const existing = await of("rights-owner", key);
      const absent = await of("rights-nobody", key);
      expect(existing.errors?.map((e) => e.extensions?.code)).toEqual(["FORBIDDEN"]);
      expect(absent.errors?.map((e) => e.extensions?.code)).toEqual(["FORBIDDEN"]);
      expect(existing.errors![0].message).toBe(absent.errors![0].message);
      expect(existing.data).toBeNull();
    }
  });
});
