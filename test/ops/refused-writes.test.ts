import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { until } from "../graphql/support.ts";
import { freshDatabase, pgAdminUrl, requirePostgres } from "../helpers/databases.ts";
import { fillSqlite, freeSqlite } from "../helpers/full-sqlite.ts";
import { as, testRuntime } from "../helpers/runtime.ts";
import { DISPATCH } from "../runlog/support.ts";
import { get } from "./support.ts";

/**
 * A database that refuses writes (docs/deploy.md §"Health and readiness", docs/run-lifecycle.md
 * §8): a full SQLite disk, a read-only PostgreSQL. A new dispatch is refused with a clear,
 * retryable UNAVAILABLE (not "Unexpected error."), `/ready` says the database refuses writes,
 * and the run in flight when writes stopped is answered and stored once they return.
 */
const hasPostgres = await requirePostgres();

/** The first GraphQL error of dispatching `tool` anonymously over HTTP. */
async function dispatchError(base: string, tool: string, input: Record<string, unknown>) {
  const res = await fetch(`${base}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: DISPATCH, variables: { tool, input } }),
  });
  const text = await res.text();
  expect(text).not.toContain("Unexpected error");
  return (JSON.parse(text) as { errors?: { message: string; extensions: Record<string, unknown> }[] }).errors?.[0];
}

const REFUSED = {
  message: expect.stringMatching(/^the database refuses writes \(its disk is full or it is read-only\)/),
  extensions: { code: "UNAVAILABLE", retryable: true, retryAfterSeconds: 5 },
};

/** A runtime serving HTTP with `held` (waits for `release()`, then returns `size` characters) and `echo_big`. */
async function heldServer(options: Parameters<typeof testRuntime>[0]) {
  const app = new App();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let began!: () => void;
  const started = new Promise<void>((r) => (began = r));
  app.tool(
    {
      name: "held",
      description: "Waits for the test, then returns `size` characters.",
      input: z.object({ size: z.number() }),
    },
    async ({ size }) => {
      began();
      await gate;
      return "o".repeat(size);
    },
  );
  app.tool(
    { name: "echo_big", description: "Returns its text.", input: z.object({ text: z.string() }) },
    ({ text }) => text,
  );
  const rt = await testRuntime({ ...options, app });
  const server = buildApp(rt);
  const base = (await server.start(0, "127.0.0.1")).replace(/\/graphql$/, "");
  const ready = async () => {
    const r = await get(`${base}/ready`);
    return { http: r?.status, ...(JSON.parse(r!.text) as object) };
  };
  const held = () => rt.dispatcher.run({ tool: "held", input: { size: 20_000 }, caller: as("USER"), door: "runtime" });
  return { rt, server, base, ready, held, started, release };
}

const READY = { http: 200, status: "ready", checks: { database: "ok", redis: "not configured" } };
const REFUSING = { http: 503, status: "unavailable", checks: { database: "refusing writes", redis: "not configured" } };

describe.skipIf(!hasPostgres)("a read-only PostgreSQL", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should refuse a dispatch UNAVAILABLE with a retry time, answer /ready 503 refusing writes, and settle the run in flight once writes return", async () => {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const name = new URL(db.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: pgAdminUrl() });
    await admin.connect();
    cleanup.push(() => admin.end());
    const setting = (on: boolean) =>
      admin.query(
        `ALTER DATABASE "${name}" ${on ? "SET default_transaction_read_only = on" : "RESET default_transaction_read_only"}`,
      );
    /**
     * Sets the database read-only (or back) for new sessions, and ends its sessions so the pool reconnects under it.
     * pg_terminate_backend only signals: the sessions are waited out, so none is still ending when the runtime closes.
     */
    const readOnly = async (on: boolean) => {
      await setting(on);
      const { rows } = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [name],
      );
      const pids = rows.map((r) => r.pid);
      await admin.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [pids]);
      await until(
        "the terminated sessions to end",
        async () => (await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)", [pids])).rowCount === 0,
        10_000,
      );
    };
    /** A stored run's status, read on a connection of its own (the runtime's pooled ones are ended by `readOnly`). */
    const status = async (id: string) => {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        return (await c.query<{ status: string }>(`SELECT status FROM "Run" WHERE id = $1`, [id])).rows[0]?.status;
      } finally {
        await c.end();
      }
    };
    const s = await heldServer({ databaseUrl: db.url });
    cleanup.push(
      () => s.rt.close(),
      () => s.server.stop(),
    );
    expect(await s.ready()).toEqual(READY);

    const inFlight = s.held();
    await s.started;
    await readOnly(true);
    cleanup.push(async () => void (await setting(false)));
    // The pool's first query after its sessions ended may fail on the broken connection: the next ones meet the
    // read-only database.
    await until(
      "a dispatch to be refused as a refused write",
      async () =>
        (await dispatchError(s.base, "echo_big", { text: "x" }))?.message.startsWith("the database refuses writes") ??
        false,
      10_000,
    );
    expect(await dispatchError(s.base, "echo_big", { text: "x" })).toMatchObject(REFUSED);

    s.release();
    const run = await inFlight;
    expect(run.status).toBe("SUCCEEDED");
    expect(await status(run.id)).toBe("RUNNING");
    await until("/ready to report refused writes", async () => (await s.ready()).http === 503, 5000);
    expect(await s.ready()).toEqual(REFUSING);

    await readOnly(false);
    await until("the kept outcome to be stored", async () => (await status(run.id)) === "SUCCEEDED", 15_000);
    await until("/ready to answer 200", async () => (await s.ready()).http === 200, 10_000);
    expect(await s.ready()).toEqual(READY);
    expect(await s.rt.db.run.count({ where: { status: "RUNNING" } })).toBe(0);
  }, 60_000);
});

describe("a full SQLite disk", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should refuse a dispatch UNAVAILABLE with a retry time, answer /ready 503 refusing writes, and settle the run in flight once space returns", async () => {
    const s = await heldServer({ kind: "sqlite" });
    cleanup.push(
      () => s.rt.dispose(),
      () => s.server.stop(),
    );
    expect(await s.ready()).toEqual(READY);

    const inFlight = s.held();
    await s.started;
    await fillSqlite(s.rt.db);
    expect(await dispatchError(s.base, "echo_big", { text: "i".repeat(20_000) })).toMatchObject(REFUSED);

    // The body ends while the disk is full: its caller gets the outcome it computed.
    s.release();
    const run = await inFlight;
    expect(run.status).toBe("SUCCEEDED");
    expect((await s.rt.db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("RUNNING");
    expect(s.rt.dispatcher.runningIds()).toContain(run.id);
    await until("/ready to report refused writes", async () => (await s.ready()).http === 503, 5000);
    expect(await s.ready()).toEqual(REFUSING);

    await freeSqlite(s.rt.db);
    await until(
      "the kept outcome to be stored",
      async () => (await s.rt.db.run.findUniqueOrThrow({ where: { id: run.id } })).status === "SUCCEEDED",
      10_000,
    );
    expect(await s.rt.db.runEvent.count({ where: { runId: run.id, type: "RUN_FINISHED" } })).toBe(1);
    expect(s.rt.dispatcher.runningIds()).not.toContain(run.id);
    await until("/ready to answer 200", async () => (await s.ready()).http === 200, 5000);
    expect(await s.ready()).toEqual(READY);
    expect(await s.rt.db.run.count({ where: { status: "RUNNING" } })).toBe(0);
  }, 60_000);
});
