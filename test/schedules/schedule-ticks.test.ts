import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import type { RunOutcome, RunRequest } from "../../src/dispatch/request.ts";
import { ScheduleStore } from "../../src/schedules/schedule-store.ts";
import { tickOnce } from "../../src/schedules/schedule-ticks.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * Ticks (docs/run-lifecycle.md §11.7): every instance checks the due schedules; one compare-and-set on the stored
 * next tick decides which fires it, so a tick is one run however many instances run, dispatched as the schedule's
 * stored caller.
 */
describe("schedule ticks across two instances on one database", () => {
  const open: TestRuntime[] = [];
  afterEach(async () => {
    // The second runtime shares the first one's database: close it first, then drop the database.
    for (const rt of open.splice(0).reverse()) await rt.dispose();
  });

  /** An app whose `beat` tool records the idempotency key of each execution. */
  function beatApp(keys: string[]): App {
    const app = new App();
    app.tool({ name: "beat", description: "Records a tick.", input: z.object({ note: z.string() }) }, (_i, ctx) => {
      keys.push(ctx.idempotencyKey ?? "none");
      return "beat";
    });
    return app;
  }

  async function until(what: string, done: () => Promise<boolean>, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("should fire a schedule every second once per tick, as its stored caller, however many instances tick", async () => {
    const keys: string[] = [];
    const a = await testRuntime({ app: beatApp(keys) });
    open.push(a);
    const b = await testRuntime({ app: beatApp(keys), databaseUrl: a.config.databaseUrl });
    open.push(b);
    const admin = (await a.keys.verify(await a.keys.create("ops", "ADMIN")))!;
    await a.schedules.put(admin, { name: "pulse", tool: "beat", input: { note: "n" }, cron: "* * * * * *" });
    await b.schedules.put(admin, {
      name: "off",
      tool: "beat",
      input: { note: "never" },
      cron: "* * * * * *",
      enabled: false,
    });

    const runs = () => a.db.run.findMany({ where: { tool: "beat" }, orderBy: { startedAt: "asc" } });
    const done = async () => (await runs()).filter((r) => r.status === "SUCCEEDED");
    await until("4 ticks executed", async () => (await done()).length >= 4);
    await b.close();
    await a.close();

    // A tick fired just before the close may still be QUEUED: the executed ones are counted.
    const all = await runs();
    const rows = await done();
    expect(all.every((r) => r.status === "SUCCEEDED" || r.status === "QUEUED")).toBe(true);
    // One run per tick: each executed run's body saw its tick's key, and no key twice.
    const ticks = [...keys];
    expect(keys.length).toBe(rows.length);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(all.map((r) => r.idempotencyScope)).size).toBe(all.length);
    for (const t of ticks) expect(t).toMatch(/^schedule:pulse:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    expect(rows.every((r) => r.callerRole === "ADMIN" && r.callerKey === "ops" && r.callerKeyId === admin.keyId)).toBe(
      true,
    );
    expect(rows.every((r) => r.door === "runtime")).toBe(true);
    // The disabled schedule fired nothing, and has no next tick.
    expect(keys.some((k) => k.startsWith("schedule:off:"))).toBe(false);
    const off = await a.db.schedule.findUniqueOrThrow({ where: { name: "off" } });
    expect(off.nextTickAt).toBeNull();
    // The last tick and its run are recorded.
    const pulse = await a.db.schedule.findUniqueOrThrow({ where: { name: "pulse" } });
    expect(all.map((r) => r.id)).toContain(pulse.lastRunId);
    expect(pulse.lastTickAt).not.toBeNull();
    // Each run was stored QUEUED by a tick, then executed: background dispatch.
    const queued = await a.db.runEvent.count({ where: { runId: { in: all.map((r) => r.id) }, type: "RUN_QUEUED" } });
    expect(queued).toBe(all.length);
  }, 30_000);
});

describe("a schedule whose ticks were missed while every instance was down", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => rt?.dispose());

  it("should fire only the latest missed tick, once, however many passes race for it", async () => {
    // Written in-process (no stored key): its recorded caller stands at each tick.
    const inProcess = { role: "ADMIN" as const, keyName: null, keyId: null };
    const app = new App();
    app.tool({ name: "beat", description: "A tick.", input: z.object({}) }, () => "beat");
    // Its own tick duty stays out of the way: the test drives the passes.
    rt = await testRuntime({ app, scheduleTickMs: 3_600_000 });
    await rt.schedules.put(inProcess, { name: "hourly", tool: "beat", cron: "0 * * * *", enabled: false });
    const down = new Date(Date.now() - 5 * 3600_000);
    await rt.db.schedule.update({ where: { name: "hourly" }, data: { enabled: true, nextTickAt: down } });
    const fired: string[] = [];
    const deps = {
      store: new ScheduleStore(rt.db),
      log: rt.log,
      run: async (req: RunRequest) => {
        fired.push(req.idempotencyKey!);
        return { run: { id: `run-${fired.length}` } } as RunOutcome;
      },
    };
    const now = new Date();
    await Promise.all([tickOnce(deps, now), tickOnce(deps, now), tickOnce(deps, now)]);
    const latest = new Date(now);
    latest.setUTCMinutes(0, 0, 0);
    expect(fired).toEqual([`schedule:hourly:${latest.toISOString()}`]);
    const row = await rt.db.schedule.findUniqueOrThrow({ where: { name: "hourly" } });
    expect(row.lastTickAt?.toISOString()).toBe(latest.toISOString());
    expect(row.lastRunId).toBe("run-1");
    expect(row.nextTickAt!.getTime()).toBe(latest.getTime() + 3600_000);
  });
});
