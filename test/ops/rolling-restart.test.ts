import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase, redisTestUrl, requirePostgres, requireRedis, testRunDir } from "../helpers/databases.ts";
import { freePort } from "../helpers/cli.ts";
import { until } from "../graphql/support.ts";
import { dispatch, serve, type ServerProcess } from "../runlog/support.ts";
import { get } from "./support.ts";

/**
 * A rolling restart behind haproxy loses nothing (docs/deploy.md §3): three `tai serve`
 * processes over one PostgreSQL and Redis, haproxy checking `/ready`, a bounded load of
 * short runs while each instance in turn gets SIGTERM and is started again on its port.
 */
const HAPROXY = "/usr/sbin/haproxy";
if (process.env.CI === "true" && !existsSync(HAPROXY))
  throw new Error(`haproxy is required under CI=true (${HAPROXY})`);
const withServices = (await requirePostgres()) && (await requireRedis()) && existsSync(HAPROXY);

describe.skipIf(!withServices)("a rolling restart behind haproxy", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should fail no request and leave every run SUCCEEDED while each instance is restarted in turn", async () => {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const env = (port: number) => ({
      PORT: String(port),
      TAI_MODULES: "test/fixtures/ops-tools.ts",
      REDIS_URL: redisTestUrl(),
      TAI_REDIS_PREFIX: `tai42-test-${randomUUID()}:`,
    });
    const ports = [await freePort(), await freePort(), await freePort()];
    const servers: ServerProcess[] = [];
    for (const p of ports) servers.push(await serve(db.url, env(p)));
    cleanup.push(async () => {
      for (const s of servers) await s.process.stop("SIGKILL");
    });

    const front = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "tai42-haproxy-"));
    const cfg = join(dir, "haproxy.cfg");
    writeFileSync(
      cfg,
      [
        "defaults",
        "  mode http",
        "  timeout connect 2s",
        "  timeout client 30s",
        "  timeout server 30s",
        "  option http-server-close",
        "  option redispatch",
        "  retries 2",
        "  retry-on conn-failure empty-response",
        `frontend f`,
        `  bind 127.0.0.1:${front}`,
        "  default_backend tai",
        "backend tai",
        "  balance roundrobin",
        "  option httpchk",
        "  http-check send meth GET uri /ready ver HTTP/1.1 hdr host 127.0.0.1",
        "  http-check expect status 200",
        "  default-server inter 1s fall 1 rise 2",
        ...ports.map((p, i) => `  server s${i} 127.0.0.1:${p} check`),
        "",
      ].join("\n"),
    );
    const haproxy: ChildProcess = spawn(HAPROXY, ["-f", cfg, "-db"], { stdio: "ignore" });
    cleanup.push(() => void haproxy.kill("SIGKILL"));
    const url = `http://127.0.0.1:${front}/graphql`;
    await until(
      "haproxy to route to every instance",
      async () => (await get(`http://127.0.0.1:${front}/ready`))?.status === 200,
      20_000,
    );
    for (const p of ports)
      await until(
        `instance ${p} ready`,
        async () => (await get(`http://127.0.0.1:${p}/ready`))?.status === 200,
        20_000,
      );

    let stop = false;
    const counts = { requests: 0, failed: 0, notSucceeded: 0 };
    const failures: string[] = [];
    const client = async () => {
      while (!stop) {
        counts.requests++;
        try {
          const seconds = 0.05 + Math.random() * 0.25;
          const run = await dispatch(url, "fenced_probe", {
            marker: join(testRunDir(), `rr-${randomUUID()}`),
            seconds,
          });
          if (run.status !== "SUCCEEDED") {
            counts.notSucceeded++;
            failures.push(JSON.stringify(run));
          }
        } catch (e) {
          counts.failed++;
          failures.push((e as Error).message.slice(0, 300));
        }
      }
    };
    const clients = Array.from({ length: 20 }, client);
    const phases: Record<string, number>[] = [];
    for (let i = 0; i < 3; i++) {
      const before = counts.requests;
      const old = servers[i];
      const exited = new Promise<void>((r) =>
        old.process.child.exitCode !== null ? r() : old.process.child.once("exit", () => r()),
      );
      old.process.child.kill("SIGTERM");
      await exited;
      servers[i] = await serve(db.url, env(ports[i]));
      await until(
        `instance ${i} ready again`,
        async () => (await get(`http://127.0.0.1:${ports[i]}/ready`))?.status === 200,
        30_000,
      );
      await new Promise((r) => setTimeout(r, 2500)); // haproxy's rise 2 at inter 1s
      phases.push({ phase: i, requests: counts.requests - before });
    }
    stop = true;
    await Promise.all(clients);
    console.log("rolling restart:", JSON.stringify({ ...counts, phases }));
    expect(failures).toEqual([]);
    expect(counts.failed + counts.notSucceeded).toBe(0);
  }, 180_000);
});
