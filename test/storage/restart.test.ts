import { spawn, type ChildProcess } from "node:child_process";
import { OUTCOME_UNKNOWN_MESSAGE } from "../../src/dispatch/run-redrive.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { openDb } from "../../src/db/client.ts";
import type { RunRecord } from "../../src/dispatch/run-record.ts";
import { LogWriter } from "../../src/runlog/log-writer.ts";
import { Secrets } from "../../src/secrets/secrets.ts";
import { RunStore } from "../../src/dispatch/run-store.ts";
import { emptyPostgresDatabase, freshDatabase, testDbKind } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { freePort } from "../helpers/cli.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every 50 ms until it returns a value, for at most `ms`. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** A tool that never returns (until its runtime cancels it on close). */
function hangingApp(): App {
  const app = new App();
  app.tool({ name: "hang", description: "Never returns.", input: z.object({}) }, () => new Promise(() => {}));
  return app;
}

/** Waits until `rt`'s last heartbeat is `ms` old (three missed beats of a 0.5 s instance is 1.5 s). */
async function untilSilentFor(rt: TestRuntime, ms: number): Promise<void> {
  const { heartbeatAt } = await rt.db.instance.findUniqueOrThrow({ where: { id: rt.instanceId } });
  await sleep(Math.max(0, heartbeatAt.getTime() + ms - Date.now()));
}

const runningOf = (rt: TestRuntime) =>
  waitFor("a RUNNING run", async () => (await rt.runs.list({ tool: "hang", status: "RUNNING" }, 1))[0]);

describe("restart recovery, in process", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  /** Opens runtimes over one shared database; all are closed and the database dropped after the test. */
  async function sharedDatabase() {
    const db = await freshDatabase();
    cleanup.push(db.drop);
    return async (options: { heartbeatSeconds?: number } = {}) => {
      const rt = await testRuntime({ databaseUrl: db.url, app: hangingApp(), ...options });
      cleanup.push(() => rt.dispose());
      return rt;
    };
  }

  it("should fail the RUNNING run of an instance that stopped beating as OUTCOME_UNKNOWN (its tool claims no idempotency)", async () => {
    const open = await sharedDatabase();
    // The crashed instance: its heartbeat (every 10 s) never fires during this test, and it is never closed.
    const crashed = await open();
    void crashed.dispatcher.run({ tool: "hang", input: {}, caller: as("USER"), door: "runtime" });
    const running = await runningOf(crashed);

    // Three missed heartbeats of the next instance (0.5 s each) make the first one look dead.
    await untilSilentFor(crashed, 1_700);
    const restarted = await open({ heartbeatSeconds: 0.5 });

    expect(restarted.recovered).toEqual([running.id]);
    const back = await restarted.runs.get(running.id);
    expect(back).toMatchObject({
      status: "OUTCOME_UNKNOWN",
      isError: true,
      errorKind: "INTERRUPTED",
      errorMessage: OUTCOME_UNKNOWN_MESSAGE,
    });
    expect(back!.finishedAt).not.toBeNull();
    const events = await restarted.runs.events({ runId: running.id }, 0);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_INTERRUPTED"]);
    expect(events[1].run).toMatchObject({
      id: running.id,
      status: "OUTCOME_UNKNOWN",
      errorKind: "INTERRUPTED",
      errorMessage: OUTCOME_UNKNOWN_MESSAGE,
    });
  });

  it("should leave the runs of an instance that is still beating untouched", async () => {
    const open = await sharedDatabase();
    const crashed = await open();
    const live = await open({ heartbeatSeconds: 0.2 });
    // One after the other: two SQLite connections in one process must not write at once
    // (the busy wait of one blocks the event loop the other needs to commit).
    void crashed.dispatcher.run({ tool: "hang", input: {}, caller: as("USER"), door: "runtime" });
    await runningOf(crashed);
    const liveRun = live.dispatcher.run({ tool: "hang", input: {}, caller: as("USER"), door: "runtime" });
    // Which RUNNING run belongs to which instance is in the instanceId column.
    const owners = await waitFor("both runs RUNNING", async () => {
      const rows = await live.db.run.findMany({
        where: { tool: "hang", status: "RUNNING" },
        select: { id: true, instanceId: true },
      });
      return rows.length === 2 ? rows : undefined;
    });
    const crashedRun = owners.find((r) => r.instanceId === crashed.instanceId)!.id;
    const liveRunning = owners.find((r) => r.instanceId === live.instanceId)!.id;

    await untilSilentFor(crashed, 1_700);
    const restarted = await open({ heartbeatSeconds: 0.5 });

    // The silent instance's run is failed (by the restart, or already by the live instance's own sweep).
    expect(restarted.recovered).not.toContain(liveRunning);
    expect(await restarted.runs.get(crashedRun)).toMatchObject({
      status: "OUTCOME_UNKNOWN",
      errorKind: "INTERRUPTED",
      errorMessage: OUTCOME_UNKNOWN_MESSAGE,
    });
    expect((await restarted.runs.get(liveRunning))?.status).toBe("RUNNING");
    expect(await restarted.runs.events({ runId: liveRunning }, 0)).toHaveLength(1);
    // The live instance still owns its run: cancelling it there ends it normally.
    expect((await live.dispatcher.cancel(liveRunning))?.status).toBe("CANCELLED");
    expect((await liveRun).status).toBe("CANCELLED");
  });

  it("should fail the runs of an instance that stops beating while this one is running", async () => {
    const open = await sharedDatabase();
    const watcher = await open({ heartbeatSeconds: 0.2 });
    const crashed = await open();
    void crashed.dispatcher.run({ tool: "hang", input: {}, caller: as("USER"), door: "runtime" });
    const running = await runningOf(crashed);
    // No restart: the watcher's heartbeat sweep notices the silent instance and publishes the outcome.
    const final = await Promise.race([watcher.dispatcher.awaitFinal(running.id), sleep(10_000).then(() => null)]);
    expect(final).toMatchObject({
      status: "OUTCOME_UNKNOWN",
      errorKind: "INTERRUPTED",
      errorMessage: OUTCOME_UNKNOWN_MESSAGE,
    });
    expect((await watcher.runs.events({ runId: running.id }, 0)).map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "RUN_INTERRUPTED",
    ]);
  });

  it("should keep the first outcome when the instance declared gone finishes the run later", async () => {
    const open = await sharedDatabase();
    const crashed = await open();
    const pending = crashed.dispatcher.run({ tool: "hang", input: {}, caller: as("USER"), door: "runtime" });
    const running = await runningOf(crashed);
    await untilSilentFor(crashed, 1_700);
    const restarted = await open({ heartbeatSeconds: 0.5 });
    expect(restarted.recovered).toEqual([running.id]);

    // The "dead" instance was only slow: closing it cancels its run, which must not overwrite the recorded outcome.
    await crashed.close();
    const late = await pending;
    expect(late).toMatchObject({ status: "OUTCOME_UNKNOWN", errorMessage: OUTCOME_UNKNOWN_MESSAGE });
    expect(await restarted.runs.get(running.id)).toMatchObject({
      status: "OUTCOME_UNKNOWN",
      errorKind: "INTERRUPTED",
      errorMessage: OUTCOME_UNKNOWN_MESSAGE,
    });
    expect((await restarted.runs.events({ runId: running.id }, 0)).map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "RUN_INTERRUPTED",
    ]);
  });
});

/** A `tai serve` child process. */
interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` and resolves with the exit code (bounded). */
  stop(signal: NodeJS.Signals, withinMs?: number): Promise<number | null>;
}

const root = resolve(import.meta.dirname, "..", "..");

async function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith("PRISMA_") && !k.startsWith("TAI_") && k !== "REDIS_URL" && k !== "DATABASE_URL",
    ),
  );
  const child = spawn(process.execPath, [join(root, "bin", "tai.mjs"), "serve"], {
    cwd: root,
    env: { ...clean, HOST: "127.0.0.1", PORT: String(port), DATABASE_URL: databaseUrl, TAI_LOG: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const url = await Promise.race([
    waitFor("the server to listen", async () => /listening on (http:\/\/\S+)/.exec(out)?.[1], 45_000),
    exited.then((code) => {
      throw new Error(`tai serve exited (${code}) before listening:\n${out}`);
    }),
  ]).catch((e: Error) => {
    child.kill("SIGKILL");
    throw e;
  });
  return {
    url,
    child,
    output: () => out,
    async stop(signal, withinMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const code = await Promise.race([exited, sleep(withinMs).then(() => "timeout" as const)]);
      if (code === "timeout") {
        child.kill("SIGKILL");
        throw new Error(`tai serve did not exit within ${withinMs} ms of ${signal}:\n${out}`);
      }
      return code;
    },
  };
}

async function gql<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown[] };
  if (body.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data!;
}

const RUN_FIELDS = "id status errorKind errorMessage finishedAt data content { type text }";
const DISPATCH = `mutation($tool: String!, $input: JSONObject!) { dispatch(input: { tool: $tool, input: $input }) { ${RUN_FIELDS} } }`;
const RUN = `query($id: ID!) { run(id: $id) { ${RUN_FIELDS} } }`;
const RUNS = `query($tool: String, $status: RunStatus) { runs(tool: $tool, status: $status, first: 10) { edges { node { id status } } } }`;

type Run = Pick<RunRecord, "id" | "status" | "errorKind" | "errorMessage" | "finishedAt" | "data" | "content">;

/** Reads a run straight from the database file, without starting a runtime (which would recover it). */
async function storedRun(databaseUrl: string, id: string): Promise<RunRecord | null> {
  const { db, driver } = await openDb(databaseUrl);
  try {
    return await new RunStore(db, new LogWriter(driver, new Secrets())).get(id);
  } finally {
    await db.$disconnect();
  }
}

describe("restart recovery, real processes", () => {
  let dir: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  let servers: ServerProcess[] = [];
  afterEach(async () => {
    for (const s of servers) await s.stop("SIGKILL").catch(() => {});
    servers = [];
    if (dir) rmSync(dir, { recursive: true, force: true });
    await drop?.();
    dir = drop = undefined;
  });
  const start = async (databaseUrl: string, env?: Record<string, string>) => {
    const s = await startServer(databaseUrl, env);
    servers.push(s);
    return s;
  };
  /** A new SQLite file that `tai serve` migrates itself, or an empty PostgreSQL database under TAI_TEST_DB=postgres. */
  const fresh = async () => {
    if (testDbKind() === "postgres") {
      const db = await emptyPostgresDatabase();
      drop = db.drop;
      return db.url;
    }
    dir = mkdtempSync(join(tmpdir(), "tai42-restart-"));
    return `file:${join(dir, "tai42.db")}`;
  };

  it("should read back a finished run after SIGTERM and a restart on the same database", async () => {
    const databaseUrl = await fresh();
    const first = await start(databaseUrl);
    const { dispatch } = await gql<{ dispatch: Run }>(first.url, DISPATCH, {
      tool: "echo",
      input: { text: "survives a restart" },
    });
    expect(dispatch).toMatchObject({ status: "SUCCEEDED", content: [{ type: "text", text: "survives a restart" }] });
    expect(await first.stop("SIGTERM")).toBe(0);

    const second = await start(databaseUrl);
    const { run } = await gql<{ run: Run }>(second.url, RUN, { id: dispatch.id });
    expect(run).toEqual(dispatch);
    const { runs } = await gql<{ runs: { edges: { node: { id: string } }[] } }>(second.url, RUNS, { tool: "echo" });
    expect(runs.edges.map((e) => e.node.id)).toEqual([dispatch.id]);
    expect(await second.stop("SIGTERM")).toBe(0);
  }, 120_000);

  it("should cancel a run still in flight after the shutdown grace on SIGTERM, answer its waiting caller and store it CANCELLED", async () => {
    const databaseUrl = await fresh();
    const server = await start(databaseUrl, { TAI_SHUTDOWN_GRACE_SECONDS: "1" });
    const inFlight = gql<{ dispatch: Run }>(server.url, DISPATCH, { tool: "sleep", input: { seconds: 60 } }).catch(
      (e: Error) => e,
    );
    const running = await waitFor("the sleep run to be RUNNING", async () => {
      const { runs } = await gql<{ runs: { edges: { node: { id: string; status: string } }[] } }>(server.url, RUNS, {
        tool: "sleep",
        status: "RUNNING",
      });
      return runs.edges[0]?.node;
    });

    const stoppedAt = Date.now();
    expect(await server.stop("SIGTERM")).toBe(0);
    // Waited for the grace period, and not for the 60 s sleep.
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(900);
    // The caller still waiting on the dispatch gets the outcome, not a cut connection.
    const answered = await inFlight;
    expect(answered).not.toBeInstanceOf(Error);
    expect((answered as { dispatch: Run }).dispatch).toMatchObject({
      id: running.id,
      status: "CANCELLED",
      errorKind: "CANCELLED",
    });

    const stored = await storedRun(databaseUrl, running.id);
    expect(stored).toMatchObject({ status: "CANCELLED", errorKind: "CANCELLED" });
    expect(stored!.finishedAt).not.toBeNull();
    const { db } = await openDb(databaseUrl);
    try {
      expect(await db.run.count({ where: { status: "RUNNING" } })).toBe(0);
      expect(await db.instance.count()).toBe(0);
    } finally {
      await db.$disconnect();
    }
  }, 120_000);

  it("should mark a run interrupted by a crash OUTCOME_UNKNOWN when the server starts again at once", async () => {
    const databaseUrl = await fresh();
    const crashed = await start(databaseUrl);
    void gql(crashed.url, DISPATCH, { tool: "sleep", input: { seconds: 60 } }).catch(() => {});
    const running = await waitFor("the sleep run to be RUNNING", async () => {
      const { runs } = await gql<{ runs: { edges: { node: { id: string } }[] } }>(crashed.url, RUNS, {
        tool: "sleep",
        status: "RUNNING",
      });
      return runs.edges[0]?.node;
    });
    await crashed.stop("SIGKILL");
    expect((await storedRun(databaseUrl, running.id))?.status).toBe("RUNNING");

    // Well within the 30 s a heartbeat needs to expire: the dead process is recognised by its pid.
    const restarted = await start(databaseUrl);
    const { run } = await gql<{ run: Run }>(restarted.url, RUN, { id: running.id });
    expect(run).toMatchObject({
      status: "OUTCOME_UNKNOWN",
      errorKind: "INTERRUPTED",
      errorMessage: OUTCOME_UNKNOWN_MESSAGE,
    });
    expect(run.finishedAt).not.toBeNull();
    expect(await restarted.stop("SIGTERM")).toBe(0);
  }, 120_000);
});
