import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../src/db/client.ts";
import { freshDatabase, requirePostgres, testDbKind, testRunDir } from "../helpers/databases.ts";
import { until } from "../graphql/support.ts";
import { ADMIN_KEY, post, serve, type DispatchedRun, type ServerProcess } from "../runlog/support.ts";

/**
 * Re-drive with real processes (docs/run-lifecycle.md §11.4): `tai serve` A runs background and synchronous runs of
 * an idempotent tool (work_idem, two attempts) and of a tool with no retry policy (work_once); A is killed (SIGKILL)
 * or frozen (SIGSTOP) while their bodies run; B, live on the same database, re-runs the idempotent ones under the
 * same run id and marks the others OUTCOME_UNKNOWN. Counted in a file both processes append to. Runs on the database
 * TAI_TEST_DB selects.
 */
const ready = testDbKind() !== "postgres" || (await requirePostgres());

const HEARTBEAT = 0.5;
const DEAD_AFTER = 2;
const timing = {
  TAI_HEARTBEAT_SECONDS: String(HEARTBEAT),
  TAI_DEAD_AFTER_SECONDS: String(DEAD_AFTER),
  TAI_QUEUE_CONCURRENCY: "200",
};
const EACH = 50;
const SYNC = 3;

const DISPATCH = /* GraphQL */ `
  mutation ($tool: String!, $input: JSONObject!, $idempotencyKey: String, $background: Boolean) {
    dispatch(input: { tool: $tool, input: $input, idempotencyKey: $idempotencyKey, background: $background }) {
      id
      status
      errorKind
      errorMessage
    }
  }
`;

const dispatch = async (url: string, tool: string, n: number, key: string, background: boolean) =>
  (
    await post<{ dispatch: DispatchedRun }>(
      url,
      DISPATCH,
      { tool, input: { n }, idempotencyKey: key, background },
      ADMIN_KEY,
    )
  ).dispatch;

interface Line {
  pid: number;
  what: string;
  runId: string;
  attempt: number;
  rest: string;
}
const lines = (dir: string): Line[] => {
  const file = join(dir, "bodies");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [pid, what, runId, attempt, ...rest] = l.split(" ");
      return { pid: Number(pid), what, runId, attempt: Number(attempt), rest: rest.join(" ") };
    });
};

describe.skipIf(!ready)("runs whose instance dies", () => {
  const children: ServerProcess[] = [];
  let db: Db | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    for (const c of children.splice(0)) {
      c.process.child.kill("SIGCONT");
      await c.process.stop("SIGKILL");
    }
    await db?.$disconnect();
    await drop?.();
    db = drop = undefined;
  });

  async function start() {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    const dir = join(testRunDir(), `redrive-${randomUUID()}`);
    mkdirSync(dir, { recursive: true });
    const env = { TAI_MODULES: "test/queue/fixtures/redrive-tools.ts", TAI_TEST_REDRIVE_DIR: dir, ...timing };
    const a = await serve(fresh.url, env);
    children.push(a);
    db = (await openDb(fresh.url)).db;
    return { url: fresh.url, dir, env, a, store: db };
  }

  it("should re-run every idempotent run on a live instance under its run id and mark the others OUTCOME_UNKNOWN, no body of those run twice", async () => {
    const { url, dir, env, a, store } = await start();
    const aPid = a.process.child.pid!;
    const aId = `${hostname()}/${aPid}/`; // <host>/<pid>/<uuid>

    const background: { tool: string; key: string; id: string }[] = [];
    for (const tool of ["work_idem", "work_once"])
      for (let n = 0; n < EACH; n++) {
        const key = `bg-${tool}-${n}`;
        const run = await dispatch(a.url, tool, n, key, true);
        expect(["QUEUED", "RUNNING"]).toContain(run.status);
        background.push({ tool, key, id: run.id });
      }
    // Synchronous callers, held open: their requests die with A, their runs do not.
    const sync = ["work_idem", "work_once"].flatMap((tool) =>
      Array.from({ length: SYNC }, (_, n) => {
        const key = `sync-${tool}-${n}`;
        return { tool, key, n, asked: dispatch(a.url, tool, n, key, false).catch((e: Error) => e) };
      }),
    );
    const total = 2 * EACH + 2 * SYNC;
    await until("A's bodies to start every run", () => lines(dir).length >= total, 60_000);
    expect(lines(dir).every((l) => l.pid === aPid && l.attempt === 1)).toBe(true);

    const b = await serve(url, env);
    children.push(b);
    const bPid = b.process.child.pid!;
    process.kill(aPid, "SIGKILL");
    const killed = Date.now();
    await a.process.stop("SIGKILL");
    for (const s of sync) expect(await s.asked).toBeInstanceOf(Error);

    const idemTotal = EACH + SYNC;
    const reRun = () => lines(dir).filter((l) => l.pid === bPid);
    await until("B to start the first re-driven body", () => reRun().length > 0, 60_000);
    const first = Date.now() - killed;
    await until("B to start every re-driven body", () => reRun().length >= idemTotal, 60_000);
    const all = Date.now() - killed;
    console.log(`re-drive after kill -9: first body on B after ${first} ms, all ${idemTotal} after ${all} ms`);
    // The bound: A declared gone (DEAD_AFTER) + a beat of B's sweep + the queue's pick-up; generous on a loaded box.
    expect(first).toBeLessThan((DEAD_AFTER + HEARTBEAT) * 1000 + 20_000);
    writeFileSync(join(dir, "release"), "");

    const readRuns = () => store.run.findMany({ include: { attempts: { orderBy: { number: "asc" } } } });
    await until(
      "every run to end",
      async () => {
        const rows = await readRuns();
        return rows.length === total && rows.every((r) => !["QUEUED", "RUNNING"].includes(r.status));
      },
      60_000,
    );
    const runs = await readRuns();
    const ids = new Set([...background.map((r) => r.id)]);
    expect(runs.filter((r) => ids.has(r.id))).toHaveLength(2 * EACH);

    const file = lines(dir);
    const idem = runs.filter((r) => r.tool === "work_idem");
    const once = runs.filter((r) => r.tool === "work_once");
    expect(idem).toHaveLength(idemTotal);
    expect(once).toHaveLength(EACH + SYNC);
    for (const r of idem) {
      expect({ id: r.id, status: r.status, errorKind: r.errorKind }).toEqual({
        id: r.id,
        status: "SUCCEEDED",
        errorKind: null,
      });
      expect(r.attempts.map((t) => t.number)).toEqual([1, 2]);
      expect(r.attempts[0].errorKind).toBe("UNAVAILABLE");
      expect(r.attempts[0].errorMessage).toMatch(/^interrupted: /);
      expect(r.attempts[0].errorMessage).toContain(aId);
      expect(r.attempts[1].errorKind).toBeNull();
      // Run twice, once on each instance, under one run id and the same idempotency key.
      const mine = file.filter((l) => l.runId === r.id);
      expect(mine.map((l) => [l.pid, l.attempt])).toEqual([
        [aPid, 1],
        [bPid, 2],
      ]);
      expect(new Set(mine.map((l) => l.rest))).toEqual(new Set([r.idempotencyKey]));
      expect(r.idempotencyKey).toMatch(/^(bg|sync)-work_idem-\d+$/);
    }
    for (const r of once) {
      expect({ status: r.status, errorKind: r.errorKind }).toEqual({
        status: "OUTCOME_UNKNOWN",
        errorKind: "INTERRUPTED",
      });
      expect((r.details as { interrupted: { instanceId: string } }).interrupted.instanceId.startsWith(aId)).toBe(true);
      expect(file.filter((l) => l.runId === r.id).map((l) => l.pid)).toEqual([aPid]);
    }
    const onceRuns = file.filter((l) => l.what === "work_once").length;
    console.log(
      `counts: ${idem.length} work_idem SUCCEEDED (bodies ${file.filter((l) => l.what === "work_idem").length}), ${once.length} work_once OUTCOME_UNKNOWN (bodies ${onceRuns})`,
    );
    expect(onceRuns).toBe(EACH + SYNC);

    // A synchronous caller re-issuing its dispatch on B gets the run its key names, as it ended.
    for (const s of sync) {
      const again = await dispatch(b.url, s.tool, s.n, s.key, false);
      const stored = runs.find((r) => r.idempotencyKey === s.key)!;
      expect(again.id).toBe(stored.id);
      expect(again.status).toBe(s.tool === "work_idem" ? "SUCCEEDED" : "OUTCOME_UNKNOWN");
    }
  }, 240_000);

  it("should have B re-run a frozen instance's idempotent run, and the woken instance write nothing more for it", async () => {
    const { url, dir, env, a, store } = await start();
    const aPid = a.process.child.pid!;
    const run = await dispatch(a.url, "work_idem", 0, "frozen-0", true);
    await until("A's body to start", () => lines(dir).some((l) => l.runId === run.id), 30_000);
    const b = await serve(url, env);
    children.push(b);
    const bPid = b.process.child.pid!;

    process.kill(aPid, "SIGSTOP");
    await until("B to re-run the body", () => lines(dir).some((l) => l.pid === bPid && l.runId === run.id), 60_000);
    // Only B's execution (attempt 2) is released: A's body, frozen in attempt 1, still waits when it wakes.
    writeFileSync(join(dir, "release-2"), "");
    await until(
      "B to finish the run",
      async () => (await store.run.findUniqueOrThrow({ where: { id: run.id } })).status === "SUCCEEDED",
      30_000,
    );
    const read = async () => ({
      events: (await store.runEvent.findMany({ where: { runId: run.id }, orderBy: { seq: "asc" } })).map((e) => [
        e.seq,
        e.type,
      ]),
      attempts: await store.attempt.findMany({ where: { runId: run.id }, orderBy: { number: "asc" } }),
      run: await store.run.findUniqueOrThrow({ where: { id: run.id } }),
    });
    const before = await read();

    const woken = Date.now();
    process.kill(aPid, "SIGCONT");
    await until(
      "the woken A to abort its body",
      () => lines(dir).some((l) => l.pid === aPid && l.what === "aborted"),
      30_000,
    );
    await until(
      "A's next heartbeat (it registers again, declared gone)",
      async () => {
        const rows = await store.instance.findMany({});
        return rows.some((i) => i.id.includes(`/${aPid}/`) && i.heartbeatAt.getTime() > woken + HEARTBEAT * 1000);
      },
      30_000,
    );
    const after = await read();
    expect(after).toEqual(before);
    expect(after.run.status).toBe("SUCCEEDED");
    expect(after.attempts.map((t) => [t.number, t.errorKind])).toEqual([
      [1, "UNAVAILABLE"],
      [2, null],
    ]);
    const mine = lines(dir).filter((l) => l.runId === run.id);
    expect(mine.map((l) => [l.pid, l.what, l.attempt])).toEqual([
      [aPid, "work_idem", 1],
      [bPid, "work_idem", 2],
      [aPid, "aborted", 1],
    ]);
  }, 180_000);
});
