import { afterEach, describe, expect, it } from "vitest";
import { failureLog } from "../../src/failure-log.ts";
import { createLogger } from "../../src/log.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { freshDatabase, pgAdminUrl, requirePostgres } from "../helpers/databases.ts";
import { testRuntime } from "../helpers/runtime.ts";
import { tcpLink, through } from "../helpers/tcp-link.ts";
import { until } from "../graphql/support.ts";
import { logs } from "../security/edge-support.ts";

/**
 * Logging during a database outage (docs/security-model.md §7): every request fails
 * alike, and the log holds at most one line per kind of failure per 10 s, counting the
 * suppressed ones, and one line when the failures end; not one line per request.
 */
const withPostgres = await requirePostgres();
const MSG = "a request met contention or a busy database";

describe.skipIf(!withPostgres)("logging a database outage", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should log 500 requests failing on a cut PostgreSQL link as at most 3 lines that count them all, the last when the failures end", async () => {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const pg = new URL(pgAdminUrl());
    const link = await tcpLink(pg.hostname, Number(pg.port || 5432));
    cleanup.push(link.close);
    const rt = await testRuntime({ databaseUrl: through(db.url, link) });
    cleanup.push(() => rt.close());
    const server = buildApp(rt);
    const url = await server.start(0, "127.0.0.1");
    cleanup.push(() => server.stop());
    const runs = async () => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ runs(first: 1) { edges { node { id } } } }" }),
      });
      return (
        ((await res.json()) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code ?? "OK"
      );
    };
    expect(await runs()).toBe("OK");

    link.cut();
    const cutAt = Date.now();
    const codes: string[] = [];
    for (let batch = 0; batch < 25; batch++) codes.push(...(await Promise.all(Array.from({ length: 20 }, runs))));
    expect(codes).toEqual(Array(500).fill("UNAVAILABLE"));
    link.restore();

    const outage = () => logs(rt).filter((l) => l.msg.startsWith(MSG));
    await until("the end of the failures to be logged", () => outage().some((l) => l.level === "info"), 30_000);
    const lines = outage();
    expect(lines.length).toBeLessThanOrEqual(3);
    const [first, ...rest] = lines;
    const ended = rest.pop()!;
    expect(first).toMatchObject({ level: "warn", msg: MSG, code: "UNAVAILABLE" });
    for (const l of rest) expect(l).toMatchObject({ level: "warn", msg: MSG, suppressed: expect.any(Number) });
    expect(ended).toMatchObject({
      level: "info",
      msg: `${MSG}: no more since 10 s`,
      kind: "UNAVAILABLE",
      failures: 500,
    });
    // Every failure is accounted for: one per line written, plus the suppressed ones each line counts.
    expect(1 + rest.reduce((n, l) => n + 1 + (l.suppressed as number), 0) + (ended.suppressed as number)).toBe(500);
    // Nothing else in the log (the periodic duties fail too) repeats more than once per 10 s either.
    const windows = Math.ceil((Date.now() - cutAt) / 10_000) + 1;
    const perMessage = Map.groupBy(
      logs(rt).filter((l) => l.level !== "info"),
      (l) => l.msg,
    );
    for (const [msg, same] of perMessage) expect(same.length, msg).toBeLessThanOrEqual(windows);
  }, 90_000);
});

describe("the failure log", () => {
  it("should keep one episode per kind of failure, each with its own first line, counted repeats and end line", async () => {
    const lines: string[] = [];
    const failures = failureLog(
      createLogger({}, (l) => lines.push(l)),
      1000,
    );
    for (let i = 0; i < 50; i++) {
      failures.failed("warn", "a request met contention or a busy database", { code: "UNAVAILABLE" }, "UNAVAILABLE");
      failures.failed("warn", "a request met contention or a busy database", { code: "CONFLICT" }, "CONFLICT");
      failures.failed("error", "expiring interactions failed", { error: "down" });
    }
    const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    await until("every episode to end", () => parsed().filter((l) => l.level === "info").length === 3, 5000);
    const shaped = parsed().map((l) => [l.level, l.msg, l.code ?? l.kind, l.failures, l.suppressed]);
    expect(shaped.slice(0, 3)).toEqual([
      ["warn", "a request met contention or a busy database", "UNAVAILABLE", undefined, undefined],
      ["warn", "a request met contention or a busy database", "CONFLICT", undefined, undefined],
      ["error", "expiring interactions failed", undefined, undefined, undefined],
    ]);
    // Each episode ends on its own timer, so the end lines come in any order.
    expect(shaped.slice(3)).toHaveLength(3);
    expect(shaped.slice(3)).toEqual(
      expect.arrayContaining([
        ["info", "a request met contention or a busy database: no more since 1 s", "UNAVAILABLE", 50, 49],
        ["info", "a request met contention or a busy database: no more since 1 s", "CONFLICT", 50, 49],
        ["info", "expiring interactions failed: no more since 1 s", undefined, 50, 49],
      ]),
    );
  });
});
