import { spawn } from "node:child_process";
import { connect } from "node:net";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redisTestUrl, requirePostgres, requireRedis } from "../helpers/databases.ts";
import { freePort } from "../helpers/cli.ts";
import { until } from "../graphql/support.ts";
import { serve, type ServerProcess } from "../runlog/support.ts";
import { get } from "./support.ts";

/**
 * Shared by the rolling-restart tests (docs/deploy.md §3): `tai serve` instances over one PostgreSQL and Redis,
 * behind Debian's haproxy configured as docs/deploy.md §3 recommends (health check on `/ready`).
 */
export const HAPROXY = "/usr/sbin/haproxy";
if (process.env.CI === "true" && !existsSync(HAPROXY))
  throw new Error(`haproxy is required under CI=true (${HAPROXY})`);

/** True when PostgreSQL, Redis and haproxy are all here. */
export async function withHaproxyServices(): Promise<boolean> {
  return (await requirePostgres()) && (await requireRedis()) && existsSync(HAPROXY);
}

/** Instances behind haproxy: `url` is haproxy's /graphql; `servers[i]` listens on `ports[i]`. */
export interface Cluster {
  url: string;
  ports: number[];
  servers: ServerProcess[];
  /** SIGTERMs instance `i`, waits for it to exit, starts it again on its port, waits until haproxy may route to it. */
  restart(i: number): Promise<void>;
  close(): Promise<void>;
  /** haproxy's health-check log so far: each server going DOWN or UP, and why. */
  checks(): string[];
  /** One column of haproxy's `show stat` by server name (`s0`, `s1`, ...): `status`, `wredis`, ... */
  stat(column: string): Promise<Record<string, string>>;
}

function haproxyConfig(front: number, ports: number[], socket: string): string {
  return [
    "global",
    `  stats socket ${socket} mode 600 level user`,
    "defaults",
    "  mode http",
    "  option log-health-checks",
    "  timeout connect 2s",
    "  timeout check 3s",
    "  timeout client 60s",
    "  timeout server 60s",
    "  option http-server-close",
    "  option redispatch",
    "  retries 2",
    "  retry-on conn-failure",
    `frontend f`,
    `  bind 127.0.0.1:${front}`,
    "  default_backend tai",
    "backend tai",
    "  balance roundrobin",
    "  option httpchk",
    "  http-check disable-on-404",
    "  http-check send meth GET uri /ready?draining=404 ver HTTP/1.1 hdr host 127.0.0.1",
    "  http-check expect status 200",
    "  default-server inter 1s fall 1 rise 2 on-marked-down shutdown-sessions",
    ...ports.map((p, i) => `  server s${i} 127.0.0.1:${p} check`),
    "",
  ].join("\n");
}

/**
 * One column of haproxy's `show stat` for each server of backend `tai`, read from its stats socket: by default its
 * state ("UP", "DOWN", ...); `wredis`, the requests it sent to another server after this one failed them.
 */
function serverStates(socket: string, column = "status"): Promise<Record<string, string>> {
  return new Promise((resolve) => {
    let csv = "";
    const c = connect(socket, () => c.end("show stat\n"));
    c.on("data", (d) => (csv += d));
    c.on("error", () => resolve({}));
    c.on("close", () => {
      const rows = csv.split("\n").map((l) => l.split(","));
      const col = rows[0]?.indexOf(column) ?? -1;
      resolve(Object.fromEntries(rows.filter((r) => r[0] === "tai" && /^s\d+$/.test(r[1])).map((r) => [r[1], r[col]])));
    });
  });
}

const up = (states: Record<string, string>) => Object.values(states).filter((v) => v === "UP").length;

/**
 * What a test may set on a cluster's instances: settings for all, and instance `i`'s Redis URL (a cuttable link), or
 * `redis: false` for instances without Redis (PostgreSQL only).
 */
export interface ClusterOptions {
  env?: Record<string, string>;
  redisUrl?: (i: number) => string;
  redis?: boolean;
}

/** Starts `n` instances over `databaseUrl` (every setting at its default unless `opts` says) and haproxy in front. */
export async function startCluster(databaseUrl: string, n: number, opts: ClusterOptions = {}): Promise<Cluster> {
  const env = (port: number) => ({
    PORT: String(port),
    TAI_MODULES: "test/fixtures/ops-tools.ts",
    ...(opts.redis === false
      ? {}
      : { REDIS_URL: opts.redisUrl?.(ports.indexOf(port)) ?? redisTestUrl(), TAI_REDIS_PREFIX: prefix }),
    ...opts.env,
  });
  const prefix = `tai42-test-${randomUUID()}:`;
  const ports: number[] = [];
  for (let i = 0; i < n; i++) ports.push(await freePort());
  const servers: ServerProcess[] = [];
  const front = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "tai42-haproxy-"));
  const cfg = join(dir, "haproxy.cfg");
  const socket = join(dir, "stats.sock");
  writeFileSync(cfg, haproxyConfig(front, ports, socket));
  // In the foreground (-db) haproxy writes its health checks and server state changes to stderr.
  const haproxy = spawn(HAPROXY, ["-f", cfg, "-db"], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  haproxy.stderr.on("data", (d) => (log += d));
  const checks = () => log.split("\n").filter((l) => /Health check|is (DOWN|UP)/.test(l));
  const close = async () => {
    haproxy.kill("SIGKILL");
    for (const s of servers) await s.process.stop("SIGKILL");
  };
  const ready = (port: number, what: string, ms: number) =>
    until(what, async () => (await get(`http://127.0.0.1:${port}/ready`))?.status === 200, ms);
  try {
    for (const p of ports) servers.push(await serve(databaseUrl, env(p)));
    for (const p of ports) await ready(p, `instance ${p} ready`, 20_000);
    await until("haproxy to route to every instance", async () => up(await serverStates(socket)) === n, 20_000);
  } catch (e) {
    await close();
    throw e;
  }
  const restart = async (i: number) => {
    const old = servers[i].process.child;
    const exited = new Promise<void>((r) => (old.exitCode !== null ? r() : old.once("exit", () => r())));
    old.kill("SIGTERM");
    const state = async () => (await serverStates(socket))[`s${i}`];
    // haproxy takes it out (its /ready answers 503 at once) while it still serves, within TAI_UNREADY_SECONDS.
    await until(`haproxy to take instance ${i} out`, async () => (await state()) !== "UP", 5000);
    await exited;
    servers[i] = await serve(databaseUrl, env(ports[i]));
    await ready(ports[i], `instance ${i} ready again`, 30_000);
    // Its old self was taken out (fall 1) and it is back once haproxy saw `rise 2` good checks.
    await until(`haproxy to route to instance ${i} again`, async () => (await state()) === "UP");
  };
  const stat = (column: string) => serverStates(socket, column);
  return { url: `http://127.0.0.1:${front}/graphql`, ports, servers, restart, close, checks, stat };
}
