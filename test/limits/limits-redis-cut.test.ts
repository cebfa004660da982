import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase, redisTestUrl, requireRedis } from "../helpers/databases.ts";
import { tcpLink, through } from "../helpers/tcp-link.ts";
import { until } from "../graphql/support.ts";
import { serve } from "../runlog/support.ts";
import { counters, degraded, dispatchOver, hammer } from "./support.ts";

/**
 * A lost Redis degrades limits to per-instance shares (docs/flow-control.md §4), never to no limit and never to a
 * hang: one `tai serve` on SQLite counting its limits in Redis, reached through a link the test really cuts mid-load.
 * Needs Redis; under CI=true a missing one fails this file.
 */
const withRedis = await requireRedis();

describe.skipIf(!withRedis)("limits while Redis is cut", () => {
  const cleanup: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should go on per instance when the link to Redis is cut mid-load (cap and rate held, every answer within 2 s, tai42_limits_degraded 1, one warning) and share them again once it is back", async () => {
    const database = await freshDatabase("sqlite");
    cleanup.push(database.drop);
    const link = await tcpLink(new URL(redisTestUrl()).hostname, Number(new URL(redisTestUrl()).port || 6379));
    cleanup.push(() => link.close());
    const server = await serve(database.url, {
      TAI_MODULES: "test/fixtures/limits-tools.ts",
      REDIS_URL: through(redisTestUrl(), link),
      TAI_REDIS_PREFIX: `tai42-test-${database.url.slice(-12)}:`,
      TAI_LOG: "info",
    });
    cleanup.push(() => server.process.stop("SIGKILL"));
    const count = counters();
    cleanup.push(count.close);
    const timedDispatch = async (tool: string) => {
      const started = Date.now();
      const run = await dispatchOver(server.url, tool, { key: count.key });
      return { run, ms: Date.now() - started };
    };

    const before = await Promise.all(Array.from({ length: 20 }, () => timedDispatch("capped_probe")));
    expect(before.every((a) => a.run.status === "SUCCEEDED")).toBe(true);
    expect(await degraded(server.url)).toBe(0);

    // Mid-load: the cut comes while 20 capped dispatches (1 s of work at 2 at once) and a rated load are under way.
    const load = Promise.all(Array.from({ length: 20 }, () => timedDispatch("capped_probe")));
    const rated = hammer(3, 3500, () => timedDispatch("rated_probe"));
    link.cut();
    const during = [...(await load), ...(await rated)];
    expect(await count.most()).toBeLessThanOrEqual(2);
    expect(during.filter((a) => a.ms > 2000).map((a) => a.ms)).toEqual([]);
    expect(during.filter((a) => a.run.status !== "SUCCEEDED" && a.run.errorKind !== "RATE_LIMITED")).toEqual([]);
    const calls = (await count.calls()).sort((a, b) => a - b);
    // 10 a second held per instance (one instance: the whole rate). The limiter's windows are fixed and start at the
    // first call counted in memory (calls[0], recorded a few ms after it was admitted); a hammer of three spends each
    // window's 10 tokens at its start, so the fourth window's burst lands within ms of calls[0] + 3 s. Three windows
    // are the calls before calls[0] + 2.9 s.
    const total = calls.filter((t) => t < calls[0] + 2900).length;
    expect(Math.abs(total - 30)).toBeLessThanOrEqual(3);
    expect(await degraded(server.url)).toBe(1);
    const warnings = server.process.stderr().match(/limits degrade to per-instance shares: Redis is out of reach/g);
    expect(warnings).toHaveLength(1);

    link.restore();
    await until("the limits to be shared again", async () => {
      await timedDispatch("capped_probe");
      return (await degraded(server.url)) === 0;
    });
    expect(server.process.stderr()).toMatch(/limits are shared again: Redis answers/);
  });
});
