import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { callerOf } from "../../src/auth/roles.ts";
import { park } from "../../src/interactions/park.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { sseReader, until } from "../graphql/support.ts";

// docs/security-model.md §2: one rule on every read door. ADMIN sees every run; any other
// caller sees only the runs it started (same key; anonymous: the anonymous runs), and
// never one of a tier above its role. A hidden run does not exist for the caller.

const DISPATCH = `mutation($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { id status errorKind } }`;
const RUNS = `query($first: Int, $after: String) { runs(first: $first, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`;
const RUN = `query($id: ID!) { run(id: $id) { id input data } }`;

describe("run visibility on every read door", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  let gql: ReturnType<typeof gqlClient>;
  const key: Record<string, string> = {};
  const run: Record<string, string> = {};

  const dispatch = async (who: string | undefined, tool: string, input: Record<string, unknown>) => {
    const r = await gql<{ dispatch: { id: string; status: string; errorKind: string | null } }>(
      DISPATCH,
      { tool, input },
      who,
    );
    expect(r.errors).toBeUndefined();
    return r.data!.dispatch;
  };
  const runIds = async (who?: string) => {
    const r = await gql<{ runs: { edges: { node: { id: string } }[] } }>(RUNS, { first: 200 }, who);
    expect(r.errors).toBeUndefined();
    return r.data!.runs.edges.map((e) => e.node.id).sort();
  };
  const sse = async (query: string, variables: Record<string, unknown>, who?: string) => {
    const res = await server.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        ...(who ? { authorization: `Bearer ${who}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    return sseReader(res);
  };

  beforeAll(async () => {
    const app = new App();
    app.tool(
      { name: "call_echo", description: "Runs echo as a child run.", input: z.object({ text: z.string() }) },
      async ({ text }, ctx) => (await ctx.runTool("echo", { text })).data,
    );
    app.tool(
      { name: "ask_owner", description: "Parks until answered.", input: z.object({ q: z.string() }), pauses: true },
      ({ q }) => park({ interactions: [{ question: q }] }),
    );
    rt = await testRuntime({ app });
    server = buildApp(rt);
    gql = gqlClient(rt);
    for (const [name, role] of [
      ["admin", "ADMIN"],
      ["alice", "USER"],
      ["bob", "USER"],
      ["reader", "READER"],
    ] as const)
      key[name] = await rt.keys.create(`vis-${name}`, role);
    run.adminStats = (await dispatch(key.admin, "admin_stats", {})).id;
    run.adminEcho = (await dispatch(key.admin, "echo", { text: "the admin's private input" })).id;
    run.alice = (await dispatch(key.alice, "echo", { text: "alice's private input" })).id;
    run.aliceWrite = (await dispatch(key.alice, "kv_put", { key: "k", value: 1 })).id;
    run.bob = (await dispatch(key.bob, "echo", { text: "bob's private input" })).id;
    run.reader = (await dispatch(key.reader, "echo", { text: "reader" })).id;
    const denied = await dispatch(key.reader, "kv_put", { key: "k", value: 2 });
    expect(denied.errorKind).toBe("PERMISSION_DENIED");
    run.readerDenied = denied.id;
    run.anonymous = (await dispatch(undefined, "echo", { text: "anonymous" })).id;
    // A run the reader's key started with a role above READER (the role it no longer has).
    const readerId = (await rt.db.apiKey.findUniqueOrThrow({ where: { name: "vis-reader" } })).id;
    run.readerAsUser = (
      await rt.dispatcher.run({
        tool: "kv_put",
        input: { key: "k", value: 3 },
        caller: callerOf("USER", "vis-reader", readerId),
        door: "runtime",
      })
    ).id;
  });
  afterAll(async () => {
    await rt?.dispose();
  });

  it("should list for each caller only the runs it may see, filtered in the query", async () => {
    expect(await runIds(key.admin)).toEqual(Object.values(run).sort());
    expect(await runIds(key.alice)).toEqual([run.alice, run.aliceWrite].sort());
    expect(await runIds(key.bob)).toEqual([run.bob]);
    // Not its PERMISSION_DENIED write-tier run, nor the write run its key started as USER.
    expect(await runIds(key.reader)).toEqual([run.reader]);
    expect(await runIds()).toEqual([run.anonymous]);
  });

  it("should keep pages full and cursors exact when other callers' runs lie between a caller's own", async () => {
    const first = await gql<{
      runs: {
        edges: { cursor: string; node: { id: string } }[];
        pageInfo: { hasNextPage: boolean; endCursor: string };
      };
    }>(RUNS, { first: 1 }, key.alice);
    expect(first.data!.runs.edges.map((e) => e.node.id)).toEqual([run.aliceWrite]);
    expect(first.data!.runs.pageInfo.hasNextPage).toBe(true);
    const second = await gql<{ runs: { edges: { node: { id: string } }[]; pageInfo: { hasNextPage: boolean } } }>(
      RUNS,
      { first: 1, after: first.data!.runs.pageInfo.endCursor },
      key.alice,
    );
    expect(second.data!.runs.edges.map((e) => e.node.id)).toEqual([run.alice]);
    expect(second.data!.runs.pageInfo.hasNextPage).toBe(false);
  });

  it("should answer run(id) with null for a run the caller may not see, and never serve another caller's input or a fenced output", async () => {
    for (const [who, hidden] of [
      [key.reader, run.adminStats],
      [key.alice, run.adminStats],
      [key.alice, run.adminEcho],
      [key.alice, run.bob],
      [key.reader, run.readerAsUser],
      [undefined, run.alice],
      [key.bob, run.anonymous],
    ] as const) {
      const r = await gql<{ run: unknown }>(RUN, { id: hidden }, who);
      expect(r.errors).toBeUndefined();
      expect(r.data!.run).toBeNull();
      expect(r.text).not.toContain("private input");
      expect(r.text).not.toContain("runsByStatus");
    }
    expect((await gql<{ run: { id: string } }>(RUN, { id: run.alice }, key.alice)).data!.run).toMatchObject({
      id: run.alice,
      input: { text: "alice's private input" },
    });
    expect(
      (await gql<{ run: { data: object } }>(RUN, { id: run.adminStats }, key.admin)).data!.run.data,
    ).toHaveProperty("runsByStatus");
    expect((await gql<{ run: { id: string } }>(RUN, { id: run.anonymous })).data!.run).toMatchObject({
      id: run.anonymous,
    });
  });

  it("should replay through runEvents only the events of runs the caller may see", async () => {
    const stream = await sse(`subscription { runEvents(afterSeq: 0) { run { id input } } }`, {}, key.reader);
    // The reader's own run has two events (RUN_STARTED, RUN_FINISHED); nothing else is replayed before them.
    await until("the reader's replayed events", () => stream.nexts().length >= 2);
    await stream.cancel();
    const ids = stream.nexts<{ runEvents: { run: { id: string } } }>().map((e) => e.data!.runEvents.run.id);
    expect(new Set(ids)).toEqual(new Set([run.reader]));
    expect(JSON.stringify(stream.events)).not.toContain("runsByStatus");
  });

  it("should end at once with NOT_FOUND a runEvents subscription filtered on a hidden run's id", async () => {
    for (const [who, hidden] of [
      [key.reader, run.adminStats],
      [key.alice, run.bob],
      [undefined, run.alice],
    ] as const) {
      const stream = await sse(
        `subscription($id: ID) { runEvents(runId: $id, afterSeq: 0) { seq } }`,
        { id: hidden },
        who,
      );
      await until("the subscription to end", () => stream.ended());
      expect(stream.nexts()).toMatchObject([{ errors: [{ extensions: { code: "NOT_FOUND" } }] }]);
    }
  });

  it("should deliver live runEvents of the caller's own runs only", async () => {
    const before = rt.bus.listenerCount("runEvent");
    const stream = await sse(`subscription { runEvents { run { id } } }`, {}, key.bob);
    await until("the subscription to listen", () => rt.bus.listenerCount("runEvent") > before);
    const hidden = await dispatch(key.admin, "admin_stats", {});
    const own = await dispatch(key.bob, "echo", { text: "live" });
    // In-process events arrive in publishing order: the admin's came first, and were skipped.
    await until("bob's two live events", () => stream.nexts().length >= 2);
    await stream.cancel();
    const ids = stream.nexts<{ runEvents: { run: { id: string } } }>().map((e) => e.data!.runEvents.run.id);
    expect(ids).toEqual([own.id, own.id]);
    expect(ids).not.toContain(hidden.id);
  });

  it("should refuse cancelRun with NOT_FOUND for a run the caller may not see", async () => {
    const r = await gql(`mutation($id: ID!) { cancelRun(id: $id) { id } }`, { id: run.adminEcho }, key.alice);
    expect(r.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);
  });

  it("should show interactions only of visible runs, and answer NOT_FOUND to answering or cancelling another caller's parked run, changing nothing", async () => {
    const parked = await dispatch(key.alice, "ask_owner", { q: "alice's question" });
    expect(parked.status).toBe("PARKED");
    const list = async (who?: string) =>
      (await gql<{ interactions: { id: string; runId: string }[] }>(`{ interactions { id runId } }`, {}, who)).data!
        .interactions;
    const [mine] = await list(key.alice);
    expect(mine.runId).toBe(parked.id);
    expect(await list(key.bob)).toEqual([]);
    expect(await list()).toEqual([]);
    expect((await list(key.admin)).map((i) => i.id)).toContain(mine.id);

    const answer = await gql(
      `mutation($id: ID!) { answerInteraction(id: $id, answer: "yes") { id } }`,
      { id: mine.id },
      key.bob,
    );
    expect(answer.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);
    const cancel = await gql(`mutation($id: ID!) { cancelRun(id: $id) { id } }`, { id: parked.id }, key.bob);
    expect(cancel.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);
    expect((await rt.interactions.forRun(parked.id)).map((i) => i.status)).toEqual(["PENDING"]);
    expect((await rt.runs.get(parked.id))!.status).toBe("PARKED");

    const answered = await gql<{ answerInteraction: { status: string } }>(
      `mutation($id: ID!) { answerInteraction(id: $id, answer: "yes") { status } }`,
      { id: mine.id },
      key.alice,
    );
    expect(answered.data!.answerInteraction.status).toBe("SUCCEEDED");
  });

  it("should show spans, listed and live, only of runs the caller may see", async () => {
    const put = await gql(
      `mutation { putManifest(input: { name: "traced", document: { extensions: { echo: ["monitor"] } } }) { name } }`,
      {},
      key.admin,
    );
    expect(put.errors).toBeUndefined();
    await gql(`mutation { activateManifest(name: "traced") { name } }`, {}, key.admin);
    const before = rt.bus.listenerCount("span");
    const stream = await sse(`subscription { spans { runId } }`, {}, key.bob);
    await until("the spans subscription to listen", () => rt.bus.listenerCount("span") > before);
    const adminSpan = await dispatch(key.admin, "echo_monitor", { text: "admin traced" });
    const bobSpan = await dispatch(key.bob, "echo_monitor", { text: "bob traced" });
    await until("bob's span opening and closing", () => stream.nexts().length >= 2);
    await stream.cancel();
    expect(stream.nexts<{ spans: { runId: string } }>().map((e) => e.data!.spans.runId)).toEqual([
      bobSpan.id,
      bobSpan.id,
    ]);
    const newest = await dispatch(key.admin, "echo_monitor", { text: "admin traced again" });

    const recent = async (who: string) =>
      (
        await gql<{ recentSpans: { runId: string }[] }>(`{ recentSpans(first: 1) { runId } }`, {}, who)
      ).data!.recentSpans.map((s) => s.runId);
    // The admin's span is the newest: alice's page of one is empty, bob's skips it.
    expect(await recent(key.alice)).toEqual([]);
    expect(await recent(key.bob)).toEqual([bobSpan.id]);
    expect(await recent(key.admin)).toEqual([newest.id]);
    expect(adminSpan.id).not.toBe(bobSpan.id);
  });

  it("should carry the root caller to child runs, and keep runs stored before tiers were recorded for ADMIN only", async () => {
    const parent = await dispatch(key.alice, "call_echo", { text: "through a child" });
    const child = await rt.db.run.findFirstOrThrow({ where: { parentRunId: parent.id } });
    const aliceSees = await runIds(key.alice);
    expect(aliceSees).toContain(parent.id);
    expect(aliceSees).toContain(child.id);
    expect(await runIds(key.bob)).not.toContain(child.id);
    expect((await gql<{ run: unknown }>(RUN, { id: child.id }, key.bob)).data!.run).toBeNull();

    await rt.db.run.update({ where: { id: run.alice }, data: { tier: null } });
    expect((await gql<{ run: unknown }>(RUN, { id: run.alice }, key.alice)).data!.run).toBeNull();
    expect(await runIds(key.alice)).not.toContain(run.alice);
    expect((await gql<{ run: { id: string } }>(RUN, { id: run.alice }, key.admin)).data!.run).toMatchObject({
      id: run.alice,
    });
  });
});
