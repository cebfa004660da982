import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { useScript } from "../agent/support.ts";
import { until } from "./support.ts";

// agentRuns: the agent runs a caller may see (its own; all for an ADMIN), newest first,
// filtered in the query so pages stay full and cursors exact (docs/security-model.md §2).

const AGENT_RUNS = `query($first: Int, $after: String, $status: AgentRunStatus, $agent: String) {
  agentRuns(first: $first, after: $after, status: $status, agent: $agent) { totalCount edges { cursor node { id agent status startedAt } } pageInfo { hasNextPage hasPreviousPage endCursor } }
}`;

type Page = {
  agentRuns: {
    totalCount: number;
    edges: { cursor: string; node: { id: string; agent: string; status: string; startedAt: string } }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
  };
};

describe("agentRuns", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  const key: Record<string, string> = {};
  const runs: Record<string, string[]> = { alice: [], bob: [], anonymous: [], failed: [] };

  const runAgent = async (who: string | undefined, provider = "hello") => {
    const r = await gql<{ runAgent: { runId: string } }>(
      `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId } }`,
      { i: { userMessage: "hi", llmProvider: provider } },
      who,
    );
    return r;
  };
  const page = async (variables: Record<string, unknown>, who?: string) => {
    const r = await gql<Page>(AGENT_RUNS, variables, who);
    expect(r.errors).toBeUndefined();
    return r.data!.agentRuns;
  };
  const ids = (p: Page["agentRuns"]) => p.edges.map((e) => e.node.id);

  beforeAll(async () => {
    rt = await testRuntime();
    gql = gqlClient(rt);
    useScript(rt.agents, "hello", () => ({ text: "Hello." }));
    useScript(rt.agents, "broken", () => ({ error: "quota exceeded" }));
    for (const [name, role] of [
      ["admin", "ADMIN"],
      ["alice", "USER"],
      ["bob", "USER"],
    ] as const)
      key[name] = await rt.keys.create(`agents-${name}`, role);
    // Each run starts after the last one's start, so newest-first is one definite order.
    const after = async (who: string | undefined, list: string, provider?: string) => {
      const last = await rt.db.agentRun.findFirst({ orderBy: { startedAt: "desc" } });
      if (last) await until("the clock to pass the last run's start", () => Date.now() > last.startedAt.getTime() + 1);
      const r = await runAgent(who, provider);
      runs[list].push(
        provider === "broken"
          ? (await rt.db.agentRun.findFirstOrThrow({ orderBy: { startedAt: "desc" } })).id
          : r.data!.runAgent.runId,
      );
    };
    await after(key.alice, "alice");
    await after(key.bob, "bob");
    await after(key.alice, "alice");
    await after(undefined, "anonymous");
    await after(key.alice, "failed", "broken");
  });
  afterAll(async () => {
    await rt?.dispose();
  });

  it("should list a caller's own agent runs newest first, with the count of all of them", async () => {
    const mine = await page({}, key.alice);
    expect(ids(mine)).toEqual([runs.failed[0], runs.alice[1], runs.alice[0]]);
    expect(mine.totalCount).toBe(3);
    expect(mine.edges.map((e) => e.node.status)).toEqual(["FAILED", "SUCCEEDED", "SUCCEEDED"]);
    expect(mine.edges.every((e) => e.node.agent === "tools_agent")).toBe(true);
    expect(ids(await page({}, key.bob))).toEqual(runs.bob);
    expect(ids(await page({}))).toEqual(runs.anonymous);
  });

  it("should show an ADMIN every agent run", async () => {
    const all = await page({ first: 200 }, key.admin);
    expect(new Set(ids(all))).toEqual(new Set([...runs.alice, ...runs.bob, ...runs.anonymous, ...runs.failed]));
    expect(all.totalCount).toBe(5);
  });

  it("should keep pages full and cursors exact when other callers' runs lie between a caller's own", async () => {
    const first = await page({ first: 2 }, key.alice);
    expect(ids(first)).toEqual([runs.failed[0], runs.alice[1]]);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = await page({ first: 2, after: first.pageInfo.endCursor }, key.alice);
    expect(ids(second)).toEqual([runs.alice[0]]);
    expect(second.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(second.totalCount).toBe(3);
  });

  it("should filter by status and by agent, counting under the same filters", async () => {
    expect(await page({ status: "FAILED" }, key.alice)).toMatchObject({
      totalCount: 1,
      edges: [{ node: { id: runs.failed[0] } }],
    });
    expect(await page({ status: "SUCCEEDED" }, key.bob)).toMatchObject({ totalCount: 1 });
    expect(await page({ status: "FAILED" }, key.bob)).toMatchObject({ totalCount: 0, edges: [] });
    expect((await page({ agent: "tools_agent" }, key.alice)).totalCount).toBe(3);
    expect(await page({ agent: "nobody" }, key.admin)).toMatchObject({ totalCount: 0, edges: [] });
  });

  it("should refuse a cursor it did not issue and a page size out of range with BAD_USER_INPUT", async () => {
    const cursor = await gql(AGENT_RUNS, { after: "not-a-cursor" }, key.alice);
    expect(cursor.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/after" }] } }]);
    const size = await gql(AGENT_RUNS, { first: 201 }, key.alice);
    expect(size.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/first" }] } }]);
  });
});
