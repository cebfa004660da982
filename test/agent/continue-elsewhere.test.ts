import { mkdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../src/db/client.ts";
import type { AgentLogEntry } from "../../src/agent/events.ts";
import { freshDatabase, requirePostgres, testDbKind, testRunDir } from "../helpers/databases.ts";
import { until } from "../graphql/support.ts";
import { ADMIN_KEY, post, serve, type ServerProcess } from "../runlog/support.ts";

/**
 * An agent run killed mid-stream continues on another instance (docs/agent-stream.md §4.3): `tai serve` A runs a
 * tools agent over a scripted model; it is killed (SIGKILL) while a tool call of its second turn is in flight; B, a
 * live instance on the same database, claims the run past TAI_DEAD_AFTER_SECONDS and continues it from its
 * checkpoint. Counted in files both processes write: every model turn is called once, no finished tool body runs
 * again, and the stored stream goes on under the same run id with no gap and no duplicate. Runs on the database
 * TAI_TEST_DB selects.
 */
const ready = testDbKind() !== "postgres" || (await requirePostgres());

const timing = { TAI_HEARTBEAT_SECONDS: "0.5", TAI_DEAD_AFTER_SECONDS: "2" };

const RUN_AGENT = /* GraphQL */ `
  mutation ($input: AgentRunInput!) {
    runAgent(input: $input) {
      runId
    }
  }
`;

const lines = (file: string) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => {
          const [pid, ...rest] = l.split(" ");
          return { pid: Number(pid), what: rest.join(" ") };
        })
    : [];

describe.skipIf(!ready)("an agent run whose instance is killed", () => {
  const children: ServerProcess[] = [];
  let db: Db | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    for (const c of children.splice(0)) await c.process.stop("SIGKILL");
    await db?.$disconnect();
    await drop?.();
    db = drop = undefined;
  });

  it("should continue on a live instance from its checkpoint: no model turn called twice, no finished tool run again, one stream", async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    const dir = join(testRunDir(), `continue-${randomUUID()}`);
    mkdirSync(dir, { recursive: true });
    const env = { TAI_MODULES: "test/fixtures/continue-agent.ts", TAI_TEST_CONTINUE_DIR: dir, ...timing };
    const a = await serve(fresh.url, env);
    children.push(a);
    db = (await openDb(fresh.url)).db;
    const store = db;

    // The caller's request dies with A; the run does not.
    const asked = post(
      a.url,
      RUN_AGENT,
      { input: { userMessage: "go", toolNames: ["note", "hold"], llmProvider: "continue-script" } },
      ADMIN_KEY,
    ).catch((e: Error) => e);
    await until(
      "the hold call to be in flight in A",
      () => lines(join(dir, "bodies")).some((l) => l.what === "hold"),
      30_000,
    );
    const run = await store.agentRun.findFirstOrThrow({});
    // Its progress names the tool run the call in flight follows.
    await until("the checkpoint to name the hold call's tool run", async () => {
      const cp = (await store.agentRun.findUniqueOrThrow({ where: { id: run.id } })).checkpoint as {
        progress?: { batch?: { toolRuns?: Record<string, string> } };
      };
      return Boolean(cp.progress?.batch?.toolRuns?.c1b);
    });
    const aPid = a.process.child.pid!;
    process.kill(aPid, "SIGKILL");
    await a.process.stop("SIGKILL");
    expect(await asked).toBeInstanceOf(Error);

    const b = await serve(fresh.url, env);
    children.push(b);
    await until(
      "B to finish the run",
      async () => (await store.agentRun.findUniqueOrThrow({ where: { id: run.id } })).status !== "RUNNING",
      60_000,
    );
    const ended = await store.agentRun.findUniqueOrThrow({ where: { id: run.id } });
    expect(ended.status).toBe("SUCCEEDED");
    expect(ended.final).toMatchObject({ type: "message_final", text: "all done" });

    // Every model turn once: turns 0 and 1 in A, turn 2 (after the kill) in B.
    const model = lines(join(dir, "model"));
    expect(model.map((l) => l.what)).toEqual(["turn 0", "turn 1", "turn 2"]);
    expect(model.map((l) => l.pid === aPid)).toEqual([true, true, false]);
    // Every finished tool body once, all in A; the call in flight was not run again (hold is not idempotent).
    const bodies = lines(join(dir, "bodies"));
    expect(bodies.map((l) => l.what).sort()).toEqual(["hold", "note 1", "note 2"]);
    expect(bodies.every((l) => l.pid === aPid)).toBe(true);

    // One stream under the run id: seq 1..n without a gap, no entry twice, one terminal.
    const log = (await store.agentEvent.findMany({ where: { runId: run.id }, orderBy: { seq: "asc" } })).map(
      (r) => r.payload as unknown as AgentLogEntry,
    );
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    const steps = log.flatMap((e) =>
      e.type === "tool_call_step" || e.type === "tool_result_step" ? [`${e.type} ${e.callId}`] : [],
    );
    expect(steps.sort()).toEqual(
      ["c0", "c1a", "c1b"].flatMap((c) => [`tool_call_step ${c}`, `tool_result_step ${c}`]).sort(),
    );
    expect(log.filter((e) => e.final).map((e) => e.type)).toEqual(["message_final"]);
    // The call in flight reads as failed to the model: its tool run was ended by the sweep, not re-run.
    const held = log.find((e) => e.type === "tool_result_step" && e.callId === "c1b") as { isError: boolean };
    expect(held.isError).toBe(true);
    // Turns are numbered on: 1, 2 in A, 3 in B.
    expect(log.filter((e) => e.type === "message_delta").map((e) => (e as { turn: number }).turn)).toEqual(
      expect.arrayContaining([3]),
    );
  }, 120_000);
});
