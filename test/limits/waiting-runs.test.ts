import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { NEVER_RAN_MESSAGE } from "../../src/dispatch/run-redrive.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/**
 * A synchronous dispatch over a concurrency cap waits for its slot as a stored run (docs/flow-control.md §3): QUEUED
 * with `details.waitingFor`, listed, followed by a re-issued key, cancellable, never taken by the queue. On the
 * database the suite runs on (SQLite by default, PostgreSQL with TAI_TEST_DB=postgres).
 */
describe("a synchronous dispatch waiting for a concurrency slot", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.dispose();
  });

  /** A runtime with `capped`, capped at 1, whose bodies each wait for the test to release them. */
  async function capped(waitSeconds = 10, heartbeatSeconds?: number) {
    const app = new App();
    const gates: (() => void)[] = [];
    const calls: string[] = [];
    app.tool(
      {
        name: "capped",
        description: "Waits for the test.",
        input: z.object({ n: z.number() }),
        limits: { concurrency: { max: 1, waitSeconds } },
      },
      async ({ n }) => {
        calls.push(`body ${n}`);
        await new Promise<void>((r) => gates.push(r));
        return `done ${n}`;
      },
    );
    const rt = await testRuntime({ app, heartbeatSeconds });
    runtimes.push(rt);
    const dispatch = (n: number, idempotencyKey?: string, onRun?: (runId: string) => void) =>
      rt.dispatcher.run({
        tool: "capped",
        input: { n },
        caller: as("USER"),
        door: "graphql",
        ...(idempotencyKey ? { idempotencyKey } : {}),
        ...(onRun ? { onRun } : {}),
      });
    const listed = () => rt.runs.list({ tool: "capped" }, 50);
    /** The run listed QUEUED, once the second dispatch stored it. */
    const waiter = async () => {
      await until("a run listed QUEUED", async () => (await listed()).some((r) => r.status === "QUEUED"));
      return (await listed()).find((r) => r.status === "QUEUED")!;
    };
    const depth = () => rt.flow.slots.waiting().get("capped") ?? 0;
    /** A first dispatch holding the slot, and a second (with `key`) stored waiting for it. */
    const held = async (key?: string) => {
      const first = dispatch(1);
      await until("the first body to hold the slot", () => gates.length === 1);
      const second = dispatch(2, key);
      return { first, second, queued: await waiter() };
    };
    return { rt, gates, calls, dispatch, listed, depth, held };
  }

  it("should list the second dispatch QUEUED with details.waitingFor while the first holds the slot, then end that same run SUCCEEDED once the first ends", async () => {
    const { rt, gates, calls, depth, held } = await capped();
    const { first, second, queued } = await held();
    expect(queued.details).toEqual({ waitingFor: { reason: "concurrency", declaredOn: "capped", waitSeconds: 10 } });
    expect(queued.attempts).toEqual([]);
    expect(depth()).toBe(1);
    expect(calls).toEqual(["body 1"]);

    gates.shift()!();
    expect((await first).status).toBe("SUCCEEDED");
    await until("the second body to hold the slot", () => gates.length === 1);
    expect((await rt.runs.get(queued.id))!).toMatchObject({ status: "RUNNING", details: null });
    gates.shift()!();
    const run = await second;
    expect(run).toMatchObject({
      id: queued.id,
      status: "SUCCEEDED",
      details: null,
      content: [{ type: "text", text: "done 2" }],
    });
    expect(calls).toEqual(["body 1", "body 2"]);
    expect(depth()).toBe(0);
    const types = (await rt.runs.events({ runId: queued.id }, 0)).map((e) => e.type);
    expect(types).toEqual(["RUN_QUEUED", "RUN_STARTED", "RUN_FINISHED"]);
  });

  it("should end a waiter whose wait ran out as that same run, FAILED RATE_LIMITED with retryAfterSeconds and the limit, listed once, its body never called", async () => {
    const { gates, calls, listed, held } = await capped(1);
    const { first, second, queued } = await held();
    const refused = await second;
    expect(refused).toMatchObject({ id: queued.id, status: "FAILED", errorKind: "RATE_LIMITED", attempts: [] });
    expect(refused.details).toEqual({
      retryAfterSeconds: expect.any(Number),
      limit: { reason: "concurrency", declaredOn: "capped" },
    });
    expect((refused.details as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.errorMessage).toMatch(/runs at most 1 at once; none was free within 1 s/);
    const runs = await listed();
    expect(runs).toHaveLength(2);
    expect(runs.filter((r) => r.id === queued.id)).toMatchObject([{ status: "FAILED", errorKind: "RATE_LIMITED" }]);
    gates.shift()!();
    expect((await first).status).toBe("SUCCEEDED");
    expect(calls).toEqual(["body 1"]);
  });

  it("should let go of a waiter's idempotency key once its wait ran out: the same key sent again once the slot is free runs", async () => {
    const { gates, dispatch, held } = await capped(1);
    const { first, second, queued } = await held("charge-42");
    expect(await second).toMatchObject({ id: queued.id, status: "FAILED", errorKind: "RATE_LIMITED" });
    gates.shift()!();
    expect((await first).status).toBe("SUCCEEDED");
    const again = dispatch(2, "charge-42");
    await until("the key's new run to hold the slot", () => gates.length === 1);
    gates.shift()!();
    const ran = await again;
    expect(ran).toMatchObject({ status: "SUCCEEDED", content: [{ type: "text", text: "done 2" }] });
    expect(ran.id).not.toBe(queued.id);
  });

  it("should stop a waiter's run cancelled between its claim and its launch: it ends CANCELLED, no body finishing", async () => {
    const { rt, gates, calls, held } = await capped();
    const { first, second, queued } = await held();
    // The claim's answer is held back after its commit (group commit, a loaded event loop) until the cancel is in.
    const claim = rt.runs.claim.bind(rt.runs);
    let committed!: () => void;
    const claimed = new Promise<void>((r) => (committed = r));
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    rt.runs.claim = async (...a: Parameters<typeof claim>) => {
      const r = await claim(...a);
      committed();
      await answered;
      return r;
    };
    gates.shift()!();
    expect((await first).status).toBe("SUCCEEDED");
    await claimed;
    expect((await rt.runs.get(queued.id))!.status).toBe("RUNNING");
    // The cancel reaches what this instance holds for the run (the wait's controller) before the claim answers.
    const inner = rt.dispatcher as unknown as { cancelHeld(id: string): boolean };
    const cancelHeld = inner.cancelHeld.bind(inner);
    let reached = false;
    inner.cancelHeld = (id) => ((reached = true), cancelHeld(id));
    const cancelling = rt.dispatcher.cancelFor(as("USER"), queued.id);
    await until("the cancel to reach the held run", () => reached);
    answer();
    // A body that did start sees its signal aborted; none finishes.
    await until("the run to end", async () => (await rt.runs.get(queued.id))!.status !== "RUNNING" || gates.length > 0);
    for (const release of gates.splice(0)) release();
    expect(await second).toMatchObject({ id: queued.id, status: "CANCELLED" });
    expect((await cancelling).status).toBe("CANCELLED");
    expect(calls.filter((c) => c === "body 2").length).toBeLessThanOrEqual(1);
  });

  it("should answer a re-issued idempotency key sent while the first dispatch waits with that run's outcome, taking no slot of its own", async () => {
    const { rt, gates, calls, dispatch, depth, held } = await capped();
    const { first, second, queued } = await held("charge-42");
    let followed: string | undefined;
    const again = dispatch(2, "charge-42", (id) => (followed = id));
    // It follows the waiting run (told its id): it neither waits in line itself nor stores a run.
    await until("the re-issued key to follow a run", () => followed !== undefined);
    expect(followed).toBe(queued.id);
    expect(depth()).toBe(1);
    gates.shift()!();
    await until("the second body to hold the slot", () => gates.length === 1);
    gates.shift()!();
    const [a, b] = await Promise.all([second, again]);
    expect(a).toMatchObject({ id: queued.id, status: "SUCCEEDED", content: [{ type: "text", text: "done 2" }] });
    expect(b).toMatchObject({ id: queued.id, status: "SUCCEEDED", content: [{ type: "text", text: "done 2" }] });
    expect((await first).status).toBe("SUCCEEDED");
    expect(calls).toEqual(["body 1", "body 2"]);
    expect(await rt.db.run.count({ where: { tool: "capped" } })).toBe(2);
  });

  it("should end a waiting run CANCELLED when it is cancelled, stopping its wait at once, its body never run", async () => {
    const { rt, gates, calls, depth, held } = await capped();
    const { first, second, queued } = await held();
    const cancelled = await rt.dispatcher.cancelFor(as("USER"), queued.id);
    expect(cancelled).toMatchObject({ id: queued.id, status: "CANCELLED", errorKind: "CANCELLED" });
    // The waiting dispatch is answered while the first still holds the slot.
    expect(await second).toMatchObject({ id: queued.id, status: "CANCELLED" });
    expect(depth()).toBe(0);
    gates.shift()!();
    expect((await first).status).toBe("SUCCEEDED");
    expect(calls).toEqual(["body 1"]);
    expect((await rt.runs.get(queued.id))!.status).toBe("CANCELLED");
  });

  it("should leave a synchronous waiter to its request: the queue's claim takes it not, and the queue's sweep does not list it", async () => {
    const { rt, gates, calls, held } = await capped();
    const { first, second, queued } = await held();
    // A queue worker handed its id (a job taken by mistake, a sweep) finds nothing to claim.
    await rt.dispatcher.executeQueued(queued.id);
    expect((await rt.runs.get(queued.id))!.status).toBe("QUEUED");
    expect(await rt.db.run.count({ where: { status: "QUEUED", syncWait: false } })).toBe(0);
    expect(calls).toEqual(["body 1"]);
    gates.shift()!();
    await until("the second body to hold the slot", () => gates.length === 1);
    gates.shift()!();
    expect((await second).status).toBe("SUCCEEDED");
    expect((await first).status).toBe("SUCCEEDED");
    expect(calls).toEqual(["body 1", "body 2"]);
  });

  it("should keep a waiter waiting across this instance's heartbeats: fencing leaves a run waiting here alone", async () => {
    const { rt, gates, calls, held } = await capped(10, 0.2);
    const { first, second, queued } = await held();
    const beat = async () => (await rt.db.instance.findUnique({ where: { id: rt.instanceId } }))!.heartbeatAt.getTime();
    // A third heartbeat seen: the tick of the second (its beat, then its fencing check) ran while the run waited.
    const seen = new Set([await beat()]);
    await until("two more heartbeats", async () => seen.add(await beat()).size >= 3);
    expect((await rt.runs.get(queued.id))!.status).toBe("QUEUED");
    gates.shift()!();
    await until("the second body to hold the slot", () => gates.length === 1);
    gates.shift()!();
    expect(await second).toMatchObject({ id: queued.id, status: "SUCCEEDED" });
    expect((await first).status).toBe("SUCCEEDED");
    expect(calls).toEqual(["body 1", "body 2"]);
  });

  it("should end a waiter whose instance is declared gone FAILED UNAVAILABLE, not OUTCOME_UNKNOWN: its body never ran", async () => {
    const { rt, gates, calls, held } = await capped();
    const { first, second, queued } = await held();
    const swept = await rt.dispatcher.settleOrphans(["another-instance"], () => "declared gone by the test");
    const ended = swept.events.find((e) => e.runId === queued.id)!;
    expect(ended.type).toBe("RUN_FINISHED");
    expect(ended.run).toMatchObject({ status: "FAILED", errorKind: "UNAVAILABLE", errorMessage: NEVER_RAN_MESSAGE });
    expect(ended.run.details).toMatchObject({
      waitingFor: { reason: "concurrency", declaredOn: "capped" },
      interrupted: { reason: "declared gone by the test" },
    });
    rt.bus.publish("runEvent", ended);
    // Its request, still here, is answered that record and stops waiting.
    expect(await second).toMatchObject({ id: queued.id, status: "FAILED", errorKind: "UNAVAILABLE" });
    gates.shift()!();
    await first;
    expect(calls).toEqual(["body 1"]);
  });
  it("should not give a waiter's rate token back into a later window when its wait runs out after its own window ended", async () => {
    const app = new App();
    const gates: (() => void)[] = [];
    app.tool(
      {
        name: "charge",
        description: "Waits for the test.",
        input: z.object({ n: z.number() }),
        limits: { concurrency: { max: 1, waitSeconds: 1 }, rate: { tokens: 3, intervalSeconds: 1 } },
      },
      async () => {
        await new Promise<void>((r) => gates.push(r));
        return "ok";
      },
    );
    const rt = await testRuntime({ app });
    runtimes.push(rt);
    const run = (n: number, background = false) =>
      rt.dispatcher.run({ tool: "charge", input: { n }, caller: as("USER"), door: "graphql", background });
    const first = run(1);
    await until("the first to hold the slot", () => gates.length === 1);
    // Taken 150 ms into the first's window, the waiters' tokens are of it; their 1 s waits end after it.
    await new Promise((r) => setTimeout(r, 150));
    const waited = await Promise.all([run(2), run(3)]);
    expect(waited.map((r) => r.errorKind)).toEqual(["RATE_LIMITED", "RATE_LIMITED"]);
    gates.shift()!();
    await first;
    // One new window of 3 tokens: at most 3 of a burst of 5 are admitted.
    const burst = await Promise.all([4, 5, 6, 7, 8].map((n) => run(n, true)));
    for (const release of gates.splice(0)) release();
    expect(burst.filter((r) => r.status !== "FAILED").length).toBeLessThanOrEqual(3);
  });
});
