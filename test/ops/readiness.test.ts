import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import {
  freshDatabase,
  pgAdminUrl,
  redisTestUrl,
  requirePostgres,
  requireRedis,
  testRunDir,
} from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { dispatch, serve, type ServerProcess } from "../runlog/support.ts";
import { tcpLink, through, type Link } from "../helpers/tcp-link.ts";
import { get, sample } from "./support.ts";

/**
 * Liveness and readiness (docs/deploy.md §"Health and readiness"): `/health` answers 200
 * while the process serves; `/ready` answers 200 only while the database (and Redis,
 * when configured) answer, and 503 from SIGTERM until the listener closes, while the runs
 * in flight drain.
 */
const withServices = (await requirePostgres()) && (await requireRedis());

describe("readiness during a graceful shutdown", () => {
  let child: ServerProcess | undefined;
  afterEach(async () => {
    await child?.process.stop("SIGKILL");
    child = undefined;
  });

  it("should answer /ready 503 (404 when the check asks) from SIGTERM while a run drains and the listener stays open, then close the listener once the run is answered", async () => {
    const db = await freshDatabase("sqlite");
    child = await serve(db.url, {
      TAI_MODULES: "test/fixtures/ops-tools.ts",
      TAI_SHUTDOWN_GRACE_SECONDS: "60",
      TAI_UNREADY_SECONDS: "0",
    });
    const base = child.url.replace(/\/graphql$/, "");
    expect(await get(`${base}/health`)).toEqual({ status: 200, text: JSON.stringify({ status: "ok" }) });
    const before = await get(`${base}/ready`);
    expect(before?.status).toBe(200);
    expect(JSON.parse(before!.text)).toEqual({ status: "ready", checks: { database: "ok", redis: "not configured" } });

    const marker = join(testRunDir(), `held-${randomUUID()}`);
    const release = `${marker}.release`;
    const held = dispatch(child.url, "held", { marker, release });
    await until(
      "the held run to start",
      () => existsSync(marker) && readFileSync(marker, "utf8") === "started",
      20_000,
    );

    child.process.child.kill("SIGTERM");
    await until("/ready to answer 503", async () => (await get(`${base}/ready`))?.status === 503, 10_000);
    const draining = await get(`${base}/ready`);
    // Not checked while it drains: neither dependency is said to be "not configured".
    expect(JSON.parse(draining!.text)).toEqual({
      status: "draining",
      checks: { database: "draining", redis: "draining" },
    });
    // A check that asks (haproxy's disable-on-404) is answered 404: stop sending, keep what is in flight.
    const asked = await get(`${base}/ready?draining=404`);
    expect([asked?.status, JSON.parse(asked!.text).status]).toEqual([404, "draining"]);
    expect((await get(`${base}/ready?draining=500`))?.status).toBe(503);
    // The listener is still open: liveness answers on a new connection, and new runs are refused, not dropped.
    expect((await get(`${base}/health`))?.status).toBe(200);
    expect(await dispatch(child.url, "echo", { text: "late" })).toMatchObject({
      status: "FAILED",
      errorKind: "UNAVAILABLE",
    });

    writeFileSync(release, "go");
    expect((await held).status).toBe("SUCCEEDED");
    const exited = new Promise<number | null>((r) =>
      child!.process.child.exitCode !== null
        ? r(child!.process.child.exitCode)
        : child!.process.child.once("exit", (code) => r(code)),
    );
    await until("the listener to close", async () => (await get(`${base}/health`)) === null, 20_000);
    expect(await exited).toBe(0);
  }, 120_000);
});

describe("TAI_UNREADY_SECONDS", () => {
  let child: ServerProcess | undefined;
  afterEach(async () => {
    await child?.process.stop("SIGKILL");
    child = undefined;
  });

  it("should keep the listener open and accept new runs with /ready answering 503 for that long after SIGTERM, when /ready was polled", async () => {
    const db = await freshDatabase("sqlite");
    child = await serve(db.url, { TAI_MODULES: "test/fixtures/ops-tools.ts", TAI_UNREADY_SECONDS: "3" });
    const base = child.url.replace(/\/graphql$/, "");
    expect((await get(`${base}/ready`))?.status).toBe(200);
    const signalled = Date.now();
    child.process.child.kill("SIGTERM");
    await until("/ready to answer 503", async () => (await get(`${base}/ready`))?.status === 503, 10_000);
    // Still accepting: a balancer's request routed here before its health check failed is served.
    expect(await dispatch(child.url, "echo", { text: "in the window" })).toMatchObject({ status: "SUCCEEDED" });
    await until("the listener to close", async () => (await get(`${base}/health`)) === null, 20_000);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(3000);
  }, 60_000);

  it("should not wait (default TAI_UNREADY_SECONDS) when nothing polled /ready before SIGTERM", async () => {
    const db = await freshDatabase("sqlite");
    child = await serve(db.url, {});
    const base = child.url.replace(/\/graphql$/, "");
    expect((await get(`${base}/health`))?.status).toBe(200);
    const signalled = Date.now();
    child.process.child.kill("SIGTERM");
    await until("the listener to close", async () => (await get(`${base}/health`)) === null, 20_000);
    expect(Date.now() - signalled).toBeLessThan(5000);
  }, 60_000);
});

describe.skipIf(!withServices)("readiness and its dependencies", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should answer /ready 200 degraded while Redis is out of reach and 503 while the database is, naming the dependency, ready again once it is back, while /health stays 200", async () => {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const pgUrl = new URL(pgAdminUrl());
    const redisUrl = new URL(redisTestUrl());
    const pgLink: Link = await tcpLink(pgUrl.hostname, Number(pgUrl.port || 5432));
    const redisLink: Link = await tcpLink(redisUrl.hostname, Number(redisUrl.port || 6379));
    cleanup.push(pgLink.close, redisLink.close);
    const rt: TestRuntime = await testRuntime({
      databaseUrl: through(db.url, pgLink),
      config: { redisUrl: through(redisTestUrl(), redisLink), redisPrefix: `tai42-test-${randomUUID()}:` },
    });
    cleanup.push(() => rt.close());
    const server: TaiServer = buildApp(rt);
    const base = (await server.start(0, "127.0.0.1")).replace(/\/graphql$/, "");
    cleanup.push(() => server.stop());
    const readiness = async () => {
      const r = await get(`${base}/ready`);
      return { http: r?.status, ...(JSON.parse(r!.text) as { status: string; checks: Record<string, string> }) };
    };

    await until("/ready to answer 200", async () => (await readiness()).http === 200, 10_000);
    expect(await readiness()).toEqual({ http: 200, status: "ready", checks: { database: "ok", redis: "ok" } });

    redisLink.cut();
    await until(
      "/ready to report Redis out of reach",
      async () => (await readiness()).checks.redis === "unreachable",
      10_000,
    );
    // Every instance shares this Redis: its outage degrades them all and takes none out of rotation.
    expect(await readiness()).toMatchObject({
      http: 200,
      status: "degraded",
      checks: { database: "ok", redis: "unreachable" },
    });
    const metrics = async () => (await get(`${base}/metrics`))!.text;
    expect(sample(await metrics(), "tai42_redis_connected")).toBe(0);
    expect((await get(`${base}/health`))?.status).toBe(200);
    redisLink.restore();
    await until("/ready to recover with Redis", async () => (await readiness()).checks.redis === "ok", 15_000);
    expect(await readiness()).toMatchObject({ http: 200, status: "ready" });
    await until(
      "both Redis connections to be up again",
      async () => sample(await metrics(), "tai42_redis_connected") === 1,
    );

    pgLink.cut();
    await until(
      "/ready to report the database out of reach",
      async () => (await readiness()).checks.database === "unreachable",
      10_000,
    );
    const down = await get(`${base}/ready`);
    expect(down?.status).toBe(503);
    expect((await get(`${base}/health`))?.status).toBe(200);
    pgLink.restore();
    await until("/ready to answer 200 again", async () => (await get(`${base}/ready`))?.status === 200, 15_000);
  }, 90_000);
});
