import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

async function until(what: string, done: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A draining instance wins no tick it cannot fire (docs/run-lifecycle.md §11.7): its tick duty stops first, so every
 * tick of a per-second schedule is fired once, by the instance that stays.
 */
describe("a schedule while one of two instances drains", () => {
  const open: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of open.splice(0).reverse()) await rt.dispose();
  });

  it("should lose no tick: every second of the window is fired once, before and after the drain", async () => {
    const keys: string[] = [];
    const app = () => {
      const a = new App();
      a.tool({ name: "beat", description: "Records a tick.", input: z.object({}) }, (_i, ctx) => {
        keys.push(ctx.idempotencyKey ?? "none");
        return "beat";
      });
      return a;
    };
    const a = await testRuntime({ app: app(), scheduleTickMs: 200 });
    open.push(a);
    const b = await testRuntime({ app: app(), databaseUrl: a.config.databaseUrl, scheduleTickMs: 200 });
    open.push(b);
    const inProcess = { role: "ADMIN" as const, keyName: null, keyId: null };
    await a.schedules.put(inProcess, { name: "pulse", tool: "beat", cron: "* * * * * *" });
    await until("3 ticks executed", () => keys.length >= 3);
    await a.drain();
    const atDrain = keys.length;
    await until("3 more ticks executed after the drain", () => keys.length >= atDrain + 3);
    await b.db.schedule.update({ where: { name: "pulse" }, data: { enabled: false, nextTickAt: null } });
    const live = () => b.db.run.count({ where: { tool: "beat", status: { in: ["QUEUED", "RUNNING"] } } });
    await until("every fired tick executed", async () => (await live()) === 0);

    const runs = await b.db.run.findMany({ where: { tool: "beat" } });
    expect(runs.every((r) => r.status === "SUCCEEDED")).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBe(runs.length);
    // Contiguous: from the first tick to the last, every second was fired.
    const seconds = keys.map((k) => Date.parse(k.slice("schedule:pulse:".length)) / 1000).sort((x, y) => x - y);
    expect(seconds.at(-1)! - seconds[0]! + 1).toBe(seconds.length);
  }, 60_000);
});
