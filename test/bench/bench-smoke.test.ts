import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testRunDir } from "../helpers/databases.ts";

/**
 * The benchmark is not part of `npm test`, but this runs `npm run bench` with tiny
 * settings so the script cannot rot. It asserts no timing, only that every scenario ran
 * to the end and wrote well-formed results.
 */
function runBench(out: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/run.ts", "--smoke", `--out=${out}`], {
      env: { ...process.env, BENCH_SMOKE: "1", DATABASE_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

const isNumber = (v: unknown) => typeof v === "number" && !Number.isNaN(v);

describe("npm run bench with smoke settings", () => {
  it("should run every scenario to the end and write well-formed results", async () => {
    mkdirSync(testRunDir(), { recursive: true });
    const out = join(testRunDir(), "bench-smoke.json");
    const { code, output } = await runBench(out);
    expect(code, output.slice(-3000)).toBe(0);

    const r = JSON.parse(readFileSync(out, "utf8"));
    expect(r.meta.smoke).toBe(true);

    expect(Object.keys(r.dispatch.servers).sort()).toEqual([
      "mcp-session",
      "mcp-stateless",
      "raw",
      "tai42-mcp-session",
      "tai42-mcp-stateless",
      "tai42-nowrites",
      "tai42-sqlite",
      "yoga",
    ]);
    for (const f of Object.values(r.dispatch.servers) as Record<string, unknown>[]) {
      for (const k of ["rps", "p50", "p99", "requests"]) expect(isNumber(f[k]), `dispatch ${k}`).toBe(true);
      expect(f.requests).toBeGreaterThan(0);
    }
    for (const name of ["tai42-sqlite", "tai42-mcp-stateless", "tai42-mcp-session"])
      expect(r.dispatch.servers[name].persisted.runs, `${name} persists its runs`).toBeGreaterThan(0);
    for (const v of Object.values(r.dispatch.ratios)) expect(isNumber(v)).toBe(true);
    for (const name of ["tai42-sqlite", "yoga"]) {
      const f = r.dispatch.oneConnection.servers[name];
      expect(f.connections).toBe(1);
      expect(f.requests).toBeGreaterThan(0);
      for (const k of ["rps", "p50", "p99"])
        expect(isNumber(f[k]), `dispatch at 1 connection, ${name} ${k}`).toBe(true);
    }
    for (const v of Object.values(r.dispatch.oneConnection.ratios)) expect(isNumber(v)).toBe(true);

    expect(r.scaling.points.map((p: { connections: number }) => p.connections)).toEqual(
      r.meta.settings.scaling.connections,
    );

    for (const side of ["baseline", "tai42"]) {
      const f = r.fanout[side];
      expect(f.connected).toBe(r.meta.settings.fanout.subscribers);
      for (const k of ["deliveries", "eventsPerSecond", "p50", "p99", "rssPerIdleSubscriberKiB"])
        expect(isNumber(f[k]), `fanout ${side} ${k}`).toBe(true);
    }

    expect(typeof r.agent.measured).toBe("boolean");
    if (r.agent.measured) {
      expect(r.agent.points.map((p: { subscribers: number }) => p.subscribers)).toEqual(
        r.meta.settings.agent.subscribers,
      );
      for (const p of r.agent.points)
        for (const side of [p.baseline, p.tai42])
          expect(isNumber(side.eventsPerSecond) && isNumber(side.ttfeMs)).toBe(true);
    } else expect(r.agent.reason).toEqual(expect.any(String));

    expect(isNumber(r.writes.runStore.sqlite.usPerDispatch)).toBe(true);
    expect(isNumber(r.writes.rawSqliteUsPerDispatch)).toBe(true);

    expect(r.redaction.dispatches).toBe(r.meta.settings.redaction.dispatches);
    for (const side of ["redacting", "echoBetween", "echoBaseline"])
      for (const k of ["firstP50", "lastP50", "ratio"])
        expect(isNumber(r.redaction[side][k]), `redaction ${side} ${k}`).toBe(true);
    for (const v of Object.values(r.redaction.ratios)) expect(isNumber(v)).toBe(true);

    const bg = r.background.databases.sqlite;
    expect(bg.engine).toBe("embedded");
    for (const v of [bg.synchronous.runsPerSecond, bg.background.enqueuePerSecond, bg.background.completionPerSecond])
      expect(v).toBeGreaterThan(0);
    for (const q of [bg.queueLatencyMs, bg.idleQueueLatencyMs])
      for (const k of ["p50", "p99", "storedP50", "storedP99"]) expect(isNumber(q[k]), `background ${k}`).toBe(true);
    for (const v of Object.values(bg.ratios)) expect(isNumber(v)).toBe(true);

    for (const k of ["node", "commander", "help", "toolsList", "bareYoga", "serveWarm", "serveFresh"])
      expect(r.startup.medianMs[k], `startup ${k}`).toBeGreaterThan(0);
    expect(Object.keys(r.startup.ratios).sort()).toEqual([
      "help/commander",
      "serveFresh/bareYoga",
      "serveWarm/bareYoga",
    ]);
    for (const v of Object.values(r.startup.ratios)) expect(isNumber(v)).toBe(true);
    expect(r.startup.baselineImports).toEqual(expect.arrayContaining(["commander", "graphql-yoga"]));
    expect(r.meta.node).toBe(process.version);
    expect(output).toContain(`Node ${process.version}`);

    // Without PostgreSQL, pg-scale does not run and the PostgreSQL target is not listed.
    expect(r.pgScale).toBeUndefined();
    expect(r.targets.map((t: { id: string }) => t.id)).toContain("dispatch-p50-at-1");
    expect(r.targets.map((t: { id: string }) => t.id)).not.toContain("pg-dispatch-vs-yoga");
    expect(r.targets.length).toBeGreaterThan(0);
    for (const t of r.targets) {
      expect(t).toEqual({
        id: expect.any(String),
        description: expect.any(String),
        target: expect.stringMatching(/^[≥≤] /),
        value: t.value === null ? null : expect.any(Number),
        met: t.value === null ? null : expect.any(Boolean),
      });
    }
    expect(output).toContain("Targets");
  }, 600_000);
});
