import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import { park } from "../../src/interactions/park.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "./support.ts";

// The reads a dashboard builds on (runs filters and totalCount, a run's events, its parent
// and children), each under the one visibility rule (docs/security-model.md §2).

const DISPATCH = `mutation($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { id status startedAt } }`;
const RUNS = `query($tool: String, $door: Door, $parent: ID, $after: DateTime, $before: DateTime, $first: Int) {
  runs(tool: $tool, door: $door, parentRunId: $parent, startedAfter: $after, startedBefore: $before, first: $first) { totalCount edges { node { id door } } pageInfo { hasNextPage } }
}`;

type Run = { id: string; status: string; startedAt: string };
type Runs = {
  runs: { totalCount: number; edges: { node: { id: string; door: string } }[]; pageInfo: { hasNextPage: boolean } };
};

describe("dashboard reads of tool runs", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  const key: Record<string, string> = {};

  const dispatch = async (who: string | undefined, tool: string, input: Record<string, unknown>): Promise<Run> => {
    const r = await gql<{ dispatch: Run }>(DISPATCH, { tool, input }, who);
    expect(r.errors).toBeUndefined();
    return r.data!.dispatch;
  };
  const runs = async (variables: Record<string, unknown>, who?: string) => {
    const r = await gql<Runs>(RUNS, variables, who);
    expect(r.errors).toBeUndefined();
    return {
      ids: r.data!.runs.edges.map((e) => e.node.id),
      totalCount: r.data!.runs.totalCount,
      hasNextPage: r.data!.runs.pageInfo.hasNextPage,
      doors: r.data!.runs.edges.map((e) => e.node.door),
    };
  };

  beforeAll(async () => {
    const app = new App();
    app.tool(
      { name: "call_echo", description: "Runs echo twice as child runs.", input: z.object({ text: z.string() }) },
      async ({ text }, ctx) => {
        await ctx.runTool("echo", { text: `${text} 1` });
        return (await ctx.runTool("echo", { text: `${text} 2` })).data;
      },
    );
    app.tool(
      { name: "call_stats", description: "Runs the fenced admin_stats as a child run.", input: z.object({}) },
      async (_i, ctx) => (await ctx.runTool("admin_stats", {})).isError,
    );
    app.tool({ name: "ask", description: "Parks until answered.", input: z.object({}), pauses: true }, () =>
      park({ interactions: [{ question: "ok?" }] }),
    );
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    for (const [name, role] of [
      ["admin", "ADMIN"],
      ["alice", "USER"],
      ["bob", "USER"],
    ] as const)
      key[name] = await rt.keys.create(`dash-${name}`, role);
  });
  afterAll(async () => {
    await rt?.dispose();
  });

  describe("runs", () => {
    it("should filter by door and count under the same filters and the caller's visibility", async () => {
      const aliceId = (await rt.db.apiKey.findUniqueOrThrow({ where: { name: "dash-alice" } })).id;
      const viaCli = await rt.dispatcher.run({
        tool: "echo",
        input: { text: "from the cli" },
        caller: callerOf("USER", "dash-alice", aliceId),
        door: "cli",
      });
      await dispatch(key.alice, "echo", { text: "over graphql" });
      await dispatch(key.bob, "echo", { text: "bob's" });

      expect(await runs({ door: "cli" }, key.alice)).toMatchObject({ ids: [viaCli.id], totalCount: 1, doors: ["cli"] });
      expect(await runs({ door: "cli" }, key.bob)).toMatchObject({ ids: [], totalCount: 0 });
      const alicesGraphql = await runs({ door: "graphql", first: 1 }, key.alice);
      expect(alicesGraphql.ids).toHaveLength(1);
      expect(alicesGraphql.totalCount).toBe(
        await rt.db.run.count({ where: { callerKeyId: aliceId, door: "graphql" } }),
      );
      // totalCount counts every visible match, not the page.
      const everything = await runs({ first: 1 }, key.admin);
      expect(everything).toMatchObject({ totalCount: await rt.db.run.count(), hasNextPage: true });
    });

    it("should list a run's children by parentRunId for its owner, and none for another caller", async () => {
      const parent = await dispatch(key.alice, "call_echo", { text: "tree" });
      const children = await runs({ parent: parent.id }, key.alice);
      expect(children.totalCount).toBe(2);
      expect(children.doors).toEqual(["extension", "extension"]);
      expect(await runs({ parent: parent.id }, key.bob)).toMatchObject({ ids: [], totalCount: 0 });
    });

    it("should keep only runs started strictly inside a startedAfter/startedBefore window", async () => {
      const a = await dispatch(key.alice, "clock", {});
      await until("the clock to pass the first run's start", () => Date.now() > Date.parse(a.startedAt) + 1);
      const b = await dispatch(key.alice, "clock", {});
      await until("the clock to pass the second run's start", () => Date.now() > Date.parse(b.startedAt) + 1);
      const c = await dispatch(key.alice, "clock", {});

      expect(await runs({ tool: "clock", after: a.startedAt }, key.alice)).toMatchObject({
        ids: [c.id, b.id],
        totalCount: 2,
      });
      expect(await runs({ tool: "clock", before: c.startedAt }, key.alice)).toMatchObject({
        ids: [b.id, a.id],
        totalCount: 2,
      });
      expect(await runs({ tool: "clock", after: a.startedAt, before: c.startedAt }, key.alice)).toMatchObject({
        ids: [b.id],
        totalCount: 1,
      });
      expect(await runs({ tool: "clock", after: a.startedAt }, key.bob)).toMatchObject({ ids: [], totalCount: 0 });
    });

    it("should refuse an empty window and a malformed instant with BAD_USER_INPUT", async () => {
      const now = new Date().toISOString();
      const empty = await gql(RUNS, { after: now, before: now }, key.alice);
      expect(empty.errors).toMatchObject([
        { extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/startedAfter" }] } },
      ]);
      const malformed = await gql(RUNS, { after: "yesterday" }, key.alice);
      expect(malformed.errors?.[0]).toMatchObject({
        message: expect.stringContaining("DateTime"),
        extensions: { code: "BAD_USER_INPUT" },
      });
    });
  });

  describe("ToolRun.events", () => {
    it("should list a run's stored events in seq order", async () => {
      const flaky = await dispatch(key.alice, "flaky", { failures: 2 });
      const r = await gql<{ run: { events: { seq: number; type: string; run: { id: string } }[] } }>(
        `query($id: ID!) { run(id: $id) { events { seq type run { id } } } }`,
        { id: flaky.id },
        key.alice,
      );
      expect(r.errors).toBeUndefined();
      const events = r.data!.run.events;
      expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "ATTEMPT_FAILED", "ATTEMPT_FAILED", "RUN_FINISHED"]);
      expect(events.every((e) => e.run.id === flaky.id)).toBe(true);
      expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((x, y) => x - y));
      expect(new Set(events.map((e) => e.seq)).size).toBe(4);
    });

    it("should page a run's events with first and afterSeq, and refuse a page size out of range", async () => {
      const flaky = await dispatch(key.alice, "flaky", { failures: 2 });
      const PAGE = `query($id: ID!, $after: Int, $first: Int) { run(id: $id) { events(afterSeq: $after, first: $first) { seq type } } }`;
      const first = await gql<{ run: { events: { seq: number; type: string }[] } }>(
        PAGE,
        { id: flaky.id, first: 2 },
        key.alice,
      );
      expect(first.data!.run.events.map((e) => e.type)).toEqual(["RUN_STARTED", "ATTEMPT_FAILED"]);
      const rest = await gql<{ run: { events: { seq: number; type: string }[] } }>(
        PAGE,
        { id: flaky.id, after: first.data!.run.events[1].seq, first: 2 },
        key.alice,
      );
      expect(rest.data!.run.events.map((e) => e.type)).toEqual(["ATTEMPT_FAILED", "RUN_FINISHED"]);
      const tooMany = await gql(PAGE, { id: flaky.id, first: 1001 }, key.alice);
      expect(tooMany.errors?.[0]).toMatchObject({
        message: expect.stringContaining('"first" must be from 1 to 1000'),
        extensions: { code: "BAD_USER_INPUT" },
      });
    });

    it("should end a parked run's events with RUN_PARKED", async () => {
      const parked = await dispatch(key.bob, "ask", {});
      const r = await gql<{ run: { events: { type: string }[] } }>(
        `query($id: ID!) { run(id: $id) { status events { type } } }`,
        { id: parked.id },
        key.bob,
      );
      expect(r.data!.run.events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_PARKED"]);
    });
  });

  describe("ToolRun.children and ToolRun.parent", () => {
    const TREE = `query($id: ID!) { run(id: $id) { id parent { id } children { id tool parent { id } children { id } } } }`;
    type Tree = {
      run: {
        id: string;
        parent: { id: string } | null;
        children: { id: string; tool: string; parent: { id: string } | null; children: unknown[] }[];
      };
    };

    it("should link a run to its children, oldest first, and each child back to its parent", async () => {
      const parent = await dispatch(key.alice, "call_echo", { text: "links" });
      const r = await gql<Tree>(TREE, { id: parent.id }, key.alice);
      expect(r.errors).toBeUndefined();
      const stored = await rt.db.run.findMany({
        where: { parentRunId: parent.id },
        orderBy: [{ startedAt: "asc" }, { id: "asc" }],
      });
      expect(r.data!.run).toEqual({
        id: parent.id,
        parent: null,
        children: stored.map((c) => ({ id: c.id, tool: "echo", parent: { id: parent.id }, children: [] })),
      });
    });

    it("should leave out the children a caller may not see: a fenced child of a USER's run shows only to an ADMIN", async () => {
      const parent = await dispatch(key.alice, "call_stats", {});
      const child = await rt.db.run.findFirstOrThrow({ where: { parentRunId: parent.id } });
      expect(child).toMatchObject({ tool: "admin_stats", tier: "fenced", errorKind: "PERMISSION_DENIED" });
      expect((await gql<Tree>(TREE, { id: parent.id }, key.alice)).data!.run.children).toEqual([]);
      expect((await gql<Tree>(TREE, { id: parent.id }, key.admin)).data!.run.children.map((c) => c.id)).toEqual([
        child.id,
      ]);
      expect((await gql<Tree>(TREE, { id: child.id }, key.admin)).data!.run.parent).toEqual({ id: parent.id });
    });

    it("should refuse a children page size out of range with BAD_USER_INPUT", async () => {
      const parent = await dispatch(key.alice, "echo", { text: "x" });
      const r = await gql(
        `query($id: ID!) { run(id: $id) { children(first: 0) { id } } }`,
        { id: parent.id },
        key.alice,
      );
      expect(r.errors).toMatchObject([{ extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/first" }] } }]);
    });
  });
});
