import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { failureLog } from "../../src/failure-log.ts";
import { ScheduleStore } from "../../src/schedules/schedule-store.ts";
import { tickOnce, type TickDeps } from "../../src/schedules/schedule-ticks.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * A tick runs as the schedule's writer read again at the tick (docs/run-lifecycle.md §11.7): never above the key's
 * role now, and not at all once the key is revoked or deleted.
 */
describe("a schedule whose key changed after it was written", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => rt?.dispose());

  async function setUp(): Promise<{ rt: TestRuntime; deps: TickDeps; due: (name: string) => Promise<void> }> {
    const app = new App();
    app.tool({ name: "look", description: "Reads.", input: z.object({}), tier: "read" }, () => "seen");
    app.tool({ name: "poke", description: "Writes.", input: z.object({}), tier: "write" }, () => "poked");
    // Its own tick duty stays out of the way: the test drives the passes.
    rt = await testRuntime({ app, scheduleTickMs: 3_600_000 });
    const r = rt;
    const caller = (await r.keys.verify(await r.keys.create("ops", "ADMIN")))!;
    for (const [name, tool] of [
      ["looks", "look"],
      ["pokes", "poke"],
    ])
      await r.schedules.put(caller, { name, tool, cron: "0 * * * *", enabled: false });
    const due = async (name: string) => {
      await r.db.schedule.update({ where: { name }, data: { enabled: true, nextTickAt: new Date(Date.now() - 1000) } });
    };
    const deps = {
      store: new ScheduleStore(r.db),
      log: r.log,
      failures: failureLog(r.log),
      run: (req: Parameters<TickDeps["run"]>[0]) => r.dispatcher.runDetailed(req),
    };
    return { rt: r, deps, due };
  }

  it("should not fire a tick whose key is revoked, leave the schedule as it is, and log the skip once", async () => {
    const { rt, deps, due } = await setUp();
    await due("looks");
    await rt.keys.revoke("ops");
    const before = await rt.db.schedule.findUniqueOrThrow({ where: { name: "looks" } });
    await tickOnce(deps);
    await due("looks");
    await tickOnce(deps);
    expect(await rt.db.run.count()).toBe(0);
    const after = await rt.db.schedule.findUniqueOrThrow({ where: { name: "looks" } });
    expect(after.enabled).toBe(true);
    expect(after.version).toBe(before.version);
    expect(after.lastRunId).toBeNull();
    expect(after.nextTickAt!.getTime()).toBeGreaterThan(Date.now());
    const skips = rt.logLines.filter((l) => l.includes("schedule tick skipped: its key is gone"));
    expect(skips).toHaveLength(1);
    expect(skips[0]).toContain("revoked");
  });

  it("should not fire a tick whose key was deleted", async () => {
    const { rt, deps, due } = await setUp();
    await due("looks");
    await rt.db.apiKey.delete({ where: { name: "ops" } });
    await tickOnce(deps);
    expect(await rt.db.run.count()).toBe(0);
    expect(rt.logLines.filter((l) => l.includes("schedule tick skipped")).join()).toContain("deleted");
  });

  it("should run a demoted key's ticks with its lower role, so a tier above it is refused PERMISSION_DENIED", async () => {
    const { rt, deps, due } = await setUp();
    await rt.db.apiKey.update({ where: { name: "ops" }, data: { role: "READER" } });
    await due("looks");
    await due("pokes");
    await tickOnce(deps);
    const runs = await rt.db.run.findMany({ orderBy: { tool: "asc" } });
    expect(runs.map((r) => [r.tool, r.callerRole, r.callerKey])).toEqual([
      ["look", "READER", "ops"],
      ["poke", "READER", "ops"],
    ]);
    const poke = runs.find((r) => r.tool === "poke")!;
    expect([poke.status, poke.errorKind]).toEqual(["FAILED", "PERMISSION_DENIED"]);
    expect(runs.find((r) => r.tool === "look")!.errorKind).not.toBe("PERMISSION_DENIED");
  });
});
