import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { until } from "../graphql/support.ts";
import { fillSqlite, freeSqlite } from "../helpers/full-sqlite.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { DISPATCH } from "../runlog/support.ts";
import { get } from "./support.ts";

/**
 * A full SQLite disk (docs/deploy.md §"Health and readiness", docs/run-lifecycle.md §8):
 * a new dispatch is refused with a clear, retryable UNAVAILABLE (not "Unexpected error."),
 * `/ready` says the database refuses writes, and the run in flight when the disk filled is
 * answered and stored once space returns.
 */
describe("a full SQLite disk", () => {
  let rt: TestRuntime | undefined;
  let server: TaiServer | undefined;
  afterEach(async () => {
    await server?.stop();
    await rt?.dispose();
    rt = server = undefined;
  });

  it("should refuse a dispatch UNAVAILABLE with a retry time, answer /ready 503 refusing writes, and settle the run in flight once space returns", async () => {
    const app = new App();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let began!: () => void;
    const started = new Promise<void>((r) => (began = r));
    app.tool({ name: "held_big", description: "Waits for the test, then returns `size` characters.", input: z.object({ size: z.number() }) }, async ({ size }) => {
      began();
      await gate;
      return "o".repeat(size);
    });
    app.tool({ name: "echo_big", description: "Returns its text.", input: z.object({ text: z.string() }) }, ({ text }) => text);
    rt = await testRuntime({ app, kind: "sqlite" });
    server = buildApp(rt);
    const base = (await server.start(0, "127.0.0.1")).replace(/\/graphql$/, "");
    const ready = async () => {
      const r = await get(`${base}/ready`);
      return { http: r?.status, ...(JSON.parse(r!.text) as object) };
    };
    expect(await ready()).toEqual({ http: 200, status: "ready", checks: { database: "ok", redis: "not configured" } });

    const inFlight = rt.dispatcher.run({ tool: "held_big", input: { size: 20_000 }, caller: as("USER"), door: "runtime" });
    await started;
    await fillSqlite(rt.db);

    const res = await fetch(`${base}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: DISPATCH, variables: { tool: "echo_big", input: { text: "i".repeat(20_000) } } }),
    });
    const body = (await res.json()) as { errors?: { message: string; extensions: Record<string, unknown> }[] };
    expect(body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/^the database refuses writes \(its disk is full or it is read-only\)/),
      extensions: { code: "UNAVAILABLE", retryable: true, retryAfterSeconds: 5 },
    });
    expect(JSON.stringify(body)).not.toContain("Unexpected error");

    // The body ends while the disk is full: its caller gets the outcome it computed.
    release();
    const run = await inFlight;
    expect(run).toMatchObject({ status: "SUCCEEDED", data: null });
    expect((await rt.db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("RUNNING");
    expect(rt.dispatcher.runningIds()).toContain(run.id);
    expect(await ready()).toEqual({ http: 503, status: "unavailable", checks: { database: "refusing writes", redis: "not configured" } });

    await freeSqlite(rt.db);
    await until("the kept outcome to be stored", async () => (await rt!.db.run.findUniqueOrThrow({ where: { id: run.id } })).status === "SUCCEEDED", 10_000);
    expect(await rt.db.runEvent.count({ where: { runId: run.id, type: "RUN_FINISHED" } })).toBe(1);
    expect(rt.dispatcher.runningIds()).not.toContain(run.id);
    expect(await ready()).toEqual({ http: 200, status: "ready", checks: { database: "ok", redis: "not configured" } });
    expect(await rt.db.run.count({ where: { status: "RUNNING" } })).toBe(0);
  }, 60_000);
});
