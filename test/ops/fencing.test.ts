import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { FENCED } from "../../src/dispatch/run-execute.ts";
import { OUTCOME_UNKNOWN_MESSAGE, unknownOutcome } from "../../src/dispatch/run-redrive.ts";
import { RunTransitions } from "../../src/dispatch/run-transitions.ts";
import { freshDatabase, requirePostgres, testDbKind, testRunDir } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { useScript } from "../agent/support.ts";
import { dispatch, serve, type DispatchedRun, type ServerProcess } from "../runlog/support.ts";

/**
 * Fencing (docs/run-lifecycle.md §8, docs/deploy.md §"Heartbeats and fencing"): a server
 * process frozen with SIGSTOP past TAI_DEAD_AFTER_SECONDS is declared gone by another
 * instance, which fails its run; woken with SIGCONT, it stops that run's body and records
 * nothing over the first outcome. Runs on the database TAI_TEST_DB selects.
 */
const ready = testDbKind() !== "postgres" || (await requirePostgres());

const HEARTBEAT = 0.5;
const DEAD_AFTER = 2;

describe.skipIf(!ready)("a stalled instance", () => {
  let child: ServerProcess | undefined;
  let sweeper: TestRuntime | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    if (child) {
      child.process.child.kill("SIGCONT");
      await child.process.stop("SIGKILL");
    }
    // A sweeper over the child's database only closes; one over a database of its own drops it too.
    await (drop ? sweeper?.close() : sweeper?.dispose());
    await drop?.();
    child = sweeper = drop = undefined;
  });

  it("should have its run failed by another instance past TAI_DEAD_AFTER_SECONDS, then stop that run's body when it wakes and record nothing over the first outcome", async () => {
    const db = await freshDatabase();
    drop = db.drop;
    const timing = { TAI_HEARTBEAT_SECONDS: String(HEARTBEAT), TAI_DEAD_AFTER_SECONDS: String(DEAD_AFTER) };
    child = await serve(db.url, { TAI_MODULES: "test/fixtures/ops-tools.ts", ...timing });
    sweeper = await testRuntime({
      databaseUrl: db.url,
      config: { heartbeatSeconds: HEARTBEAT, deadAfterSeconds: DEAD_AFTER },
    });
    const marker = join(testRunDir(), `fenced-${randomUUID()}`);
    const answer = dispatch(child.url, "fenced_probe", { marker, seconds: 60 }).catch((e: Error) => e);

    await until(
      "the body to start in the child",
      () => existsSync(marker) && readFileSync(marker, "utf8") === "started",
      20_000,
    );
    const [run] = await sweeper.runs.list({ tool: "fenced_probe" }, 1);
    expect(run.status).toBe("RUNNING");
    const pid = child.process.child.pid!;

    process.kill(pid, "SIGSTOP");
    const stopped = Date.now();
    await until(
      "the other instance to fail the stalled instance's run",
      async () => (await sweeper!.runs.get(run.id))?.status === "OUTCOME_UNKNOWN",
      20_000,
    );
    expect(Date.now() - stopped).toBeGreaterThanOrEqual(DEAD_AFTER * 1000 - 2 * HEARTBEAT * 1000);
    process.kill(pid, "SIGCONT");

    await until(
      "the woken instance to stop the body",
      () => readFileSync(marker, "utf8").startsWith("aborted"),
      20_000,
    );
    expect(readFileSync(marker, "utf8")).toBe(`aborted: ${FENCED}`);

    // The caller on the stalled instance gets the first outcome, and it is all that is stored.
    expect(await answer).toMatchObject({
      id: run.id,
      status: "OUTCOME_UNKNOWN",
      errorKind: "INTERRUPTED",
      errorMessage: OUTCOME_UNKNOWN_MESSAGE,
    } satisfies Partial<DispatchedRun>);
    const stored = await sweeper.runs.get(run.id);
    expect(stored).toMatchObject({
      status: "OUTCOME_UNKNOWN",
      errorKind: "INTERRUPTED",
      errorMessage: OUTCOME_UNKNOWN_MESSAGE,
      attempts: [],
    });
    const why = (stored!.details as { interrupted: { instanceId: string; reason: string } }).interrupted;
    expect(why.instanceId).toBe((await sweeper.db.run.findUniqueOrThrow({ where: { id: run.id } })).instanceId);
    expect(why.reason).toMatch(
      /missed its heartbeats: none for \d+(\.\d)? s \(TAI_DEAD_AFTER_SECONDS is 2\); declared gone by /,
    );
    const events = await sweeper.runs.events({ runId: run.id }, 0);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_INTERRUPTED"]);

    // The woken instance registered again and serves.
    await until(
      "the woken instance to beat again",
      async () => (await sweeper!.db.instance.count({ where: { id: why.instanceId } })) === 1,
      10_000,
    );
    expect((await dispatch(child.url, "echo", { text: "awake" })).status).toBe("SUCCEEDED");
  }, 90_000);

  it("should not retry, nor record the failed attempt, once another instance has ended the run", async () => {
    const app = new App();
    let calls = 0;
    // eslint-disable-next-line prefer-const -- assigned inside the tool body defined below
    let declareGone!: () => Promise<unknown>;
    app.tool(
      {
        name: "flaky_once",
        description: "Fails its first attempt after the run was failed elsewhere.",
        input: z.object({}),
        retry: {
          maxAttempts: 3,
          idempotent: true,
          retryable: true,
          backoff: { initialSeconds: 0.01, multiplier: 1, capSeconds: 0.01 },
        },
      },
      async () => {
        calls++;
        // Another instance declares this one gone and fails the run while its attempt runs.
        await declareGone();
        throw new ToolError("upstream down", { kind: "UNAVAILABLE" });
      },
    );
    sweeper = await testRuntime({ app, config: { demo: false } });
    const rt = sweeper;
    // Another instance ends the run (its outcome unknown) while this one still runs its attempt.
    const moves = new RunTransitions(rt.db, rt.runs);
    declareGone = async () => {
      const [orphan] = await moves.orphans([]);
      await moves.move(orphan!.id, { status: "RUNNING" }, (r) =>
        unknownOutcome(r, { instanceId: orphan!.instanceId, reason: "declared gone by a test" }),
      );
    };
    const run = await rt.dispatcher.run({ tool: "flaky_once", input: {}, caller: as("USER"), door: "runtime" });
    expect(calls).toBe(1);
    expect(run).toMatchObject({ status: "OUTCOME_UNKNOWN", errorKind: "INTERRUPTED", attempts: [] });
    expect((await rt.runs.events({ runId: run.id }, 0)).map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_INTERRUPTED"]);
  });

  it("should stop an agent run another instance failed at the next heartbeat, and store nothing over that failure", async () => {
    sweeper = await testRuntime({ heartbeatSeconds: 0.2 });
    const stalled = sweeper;
    const other = await testRuntime({ databaseUrl: stalled.config.databaseUrl });
    try {
      const model = useScript(
        stalled.agents,
        "slow",
        [{ text: Array.from({ length: 2000 }, (_, i) => `w${i}`).join(" ") }],
        25,
      );
      const started = await stalled.agents.start({
        options: { userMessage: "talk", llmProvider: "slow" },
        caller: as("USER"),
      });
      // A turn's text is held until the turn ends (docs/agent-stream.md §2.2): the model being called is the sign it
      // runs.
      await until("the model to be streaming", () => model.seen.length > 0);
      // The other instance declares this one gone and fails the run.
      expect(await other.agents.failInterrupted([other.instanceId])).toHaveLength(1);
      await until("the run to stop here", () => stalled.agents.runningCount === 0, 10_000);
      const run = await other.agents.store.get(started.runId);
      expect(run?.status).toBe("FAILED");
      const log = await other.agents.store.events(started.runId, 0);
      expect(log.filter((e) => e.type === "run_failed")).toEqual([
        expect.objectContaining({ kind: "INTERNAL", message: "interrupted by restart" }),
      ]);
    } finally {
      await other.close();
    }
  });
});
