import { PgBoss } from "pg-boss";
import { failureLog } from "../failure-log.ts";
import type { Job, Queue } from "pg-boss";
import type { Logger } from "../log.ts";
import type { RunQueue } from "./run-queue.ts";

/**
 * The PostgreSQL engine of the run queue (docs/run-lifecycle.md §11.3), on pg-boss. It owns
 * claiming a job (`SKIP LOCKED`), the job's lease and the retry of a job whose worker died;
 * the run log owns everything about the run itself. A job carries only `{ runId }`, sent with
 * the run id as singleton key on a `short` queue: a run has at most one waiting job.
 *
 * The lease is pg-boss's heartbeat (`heartbeatSeconds`): each job in `work` is touched every
 * half of it, so a long run keeps its job for as long as its worker lives, and a job whose
 * worker died is retried by any instance's supervisor once the heartbeat is that stale.
 * `expireInSeconds` only bounds a single handler (pg-boss's maximum, 24 h); a run that outlives
 * it loses its job, not its execution (the run log still holds it, `RUNNING`).
 */
export interface PgBossQueueOptions {
  connectionString: string;
  log: Logger;
  /** The schema pg-boss creates and migrates on start; never Prisma's. Default "pgboss". */
  schema?: string;
  /** Default "tai42-runs". */
  queueName?: string;
  /** The idle poll between fetches, in seconds (pg-boss's minimum 0.5). Default 2. */
  pollSeconds?: number;
  /** The job lease: a worker silent this long loses its job (pg-boss's minimum 10). Default 30. */
  leaseSeconds?: number;
  /** How often this instance looks for jobs whose lease lapsed, in seconds. Default 10. */
  superviseSeconds?: number;
  /**
   * With LISTEN/NOTIFY on, the slower poll that backs it up (a retried job sends no NOTIFY), in
   * seconds. Default 10.
   */
  backstopSeconds?: number;
  /** LISTEN/NOTIFY wakes every instance's idle workers when a job is sent. Default true. */
  listenNotify?: boolean;
  /** How long a query waits for a connection before it fails, in ms. Default 5000. */
  connectTimeoutMs?: number;
}

/** The connections pg-boss may hold, beside Prisma's pool (TAI_DB_POOL). */
export const QUEUE_POOL = 2;

/** pg-boss's longest handler bound: the job of a run longer than this is failed, not the run. */
const HANDLER_BOUND_SECONDS = 24 * 60 * 60;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

interface Slot {
  id: string | null;
  busy: boolean;
}

type RunJob = Job<{ runId: string }>;

export class PgBossQueue implements RunQueue {
  readonly engine = "pg-boss";
  readonly schema: string;
  readonly queueName: string;
  private readonly log: Logger;
  private readonly opts: Required<Omit<PgBossQueueOptions, "log" | "schema" | "queueName">>;
  private readonly boss: PgBoss;
  private starting: Promise<void> | null = null;
  private slots: Slot[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;
  /** Sends waiting for the next `insert` (see `enqueue`). */
  private outbox: { runId: string; ok: () => void; fail: (e: Error) => void }[] = [];
  private sending: Promise<void> | null = null;

  constructor(options: PgBossQueueOptions) {
    this.schema = options.schema ?? "pgboss";
    if (!SCHEMA_NAME.test(this.schema))
      throw new Error(`pg-boss schema "${this.schema}" is not a plain lowercase name`);
    this.queueName = options.queueName ?? "tai42-runs";
    this.log = options.log.child({ engine: this.engine, queue: this.queueName });
    this.opts = {
      connectionString: options.connectionString,
      pollSeconds: options.pollSeconds ?? 2,
      leaseSeconds: options.leaseSeconds ?? 30,
      superviseSeconds: options.superviseSeconds ?? 10,
      backstopSeconds: options.backstopSeconds ?? 10,
      listenNotify: options.listenNotify ?? true,
      connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    };
    this.boss = new PgBoss({
      connectionString: this.opts.connectionString,
      schema: this.schema,
      application_name: "tai42-queue",
      // Its own small pool beside Prisma's (TAI_DB_POOL): docs/deploy.md counts both.
      max: QUEUE_POOL,
      connectionTimeoutMillis: this.opts.connectTimeoutMs,
      useListenNotify: this.opts.listenNotify,
      superviseIntervalSeconds: this.opts.superviseSeconds,
      monitorIntervalSeconds: this.opts.superviseSeconds,
      // tai42 has its own schedules (croner, §11): pg-boss's cron loop is not used.
      schedule: false,
      openTelemetry: { enabled: false },
    });
    // A database outage surfaces here (and as rejected calls); it must never crash the process.
    // Counted in episodes (one line per 10 s while they last): an outage must not flood the log.
    const failures = failureLog(this.log);
    this.boss.on("error", (e: unknown) => failures.failed("error", "pg-boss error", { error: describe(e) }));
    this.boss.on("warning", (w: unknown) => failures.failed("warn", "pg-boss warning", { warning: describe(w) }));
  }

  /** Starts pg-boss (creating or migrating its schema) and the queue, once. */
  private ready(): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`the ${this.engine} queue "${this.queueName}" is closed`));
    this.starting ??= this.boot().catch((e: unknown) => {
      this.starting = null;
      throw e;
    });
    return this.starting;
  }

  private async boot(): Promise<void> {
    await this.boss.start();
    const queue: Omit<Queue, "name"> = { policy: "short", notify: this.opts.listenNotify, ...this.jobOptions() };
    if (await this.boss.getQueue(this.queueName)) await this.boss.updateQueue(this.queueName, queueUpdate(queue));
    else await this.boss.createQueue(this.queueName, queue);
  }

  /** Set on the queue and on each job (a queue made earlier keeps its heartbeat; a job's own wins). */
  private jobOptions() {
    return {
      heartbeatSeconds: this.opts.leaseSeconds,
      expireInSeconds: HANDLER_BOUND_SECONDS,
      // A job is retried only when its worker died or pg-boss stopped under it: the run log
      // decides whether that run executes again (a job whose run is not QUEUED does nothing).
      retryLimit: 5,
      retryDelay: 0,
      // The run log is the history: a finished job is only a receipt.
      deleteAfterSeconds: 60 * 60,
    };
  }

  /**
   * Sends the job of run `runId`. The sends of one turn of the event loop, and those made while a batch is being
   * written, go out together: one `insert` of many jobs (one statement) instead of one `send` each, so a burst of
   * background dispatches does not queue one round trip per run on pg-boss's small pool. Resolves once the job is
   * durable; a failed batch rejects each of its callers.
   */
  async enqueue(runId: string): Promise<void> {
    await new Promise<void>((ok, fail) => {
      this.outbox.push({ runId, ok, fail });
      this.sending ??= this.sendAll();
    });
    // pg-boss polls; an idle worker of this instance takes the job now instead.
    const idle = this.slots.find((s) => !s.busy && s.id !== null);
    if (idle?.id) this.boss.notifyWorker(idle.id);
  }

  private async sendAll(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    while (this.outbox.length) {
      const batch = this.outbox.splice(0);
      const ids = [...new Set(batch.map((b) => b.runId))];
      try {
        await this.ready();
        // The run id is the singleton key: a run with a waiting job gets no second one (pg-boss skips it).
        const jobs = ids.map((id) => ({ data: { runId: id }, singletonKey: id, ...this.jobOptions() }));
        await this.boss.insert(this.queueName, jobs);
        for (const b of batch) b.ok();
      } catch (e) {
        for (const b of batch)
          b.fail(new Error(`could not queue run ${b.runId} on ${this.engine}: ${describe(e)}`, { cause: e }));
      }
    }
    // In the same step as the last look at the outbox: a send pushed after it starts a new round.
    this.sending = null;
  }

  async start(work: (runId: string) => Promise<void>, concurrency: number): Promise<void> {
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Error(`queue concurrency must be a positive integer`);
    await this.ready();
    if (this.slots.length) throw new Error(`the ${this.engine} queue "${this.queueName}" is already started`);
    // One pg-boss worker per slot, each one job at a time: at most `concurrency` on this instance.
    const slots = Array.from({ length: concurrency }, (): Slot => ({ id: null, busy: false }));
    this.slots = slots;
    for (const slot of slots) {
      slot.id = await this.boss.work<{ runId: string }>(
        this.queueName,
        {
          batchSize: 1,
          pollingIntervalSeconds: this.opts.pollSeconds,
          notifyPollingIntervalSeconds: Math.max(this.opts.pollSeconds, this.opts.backstopSeconds),
        },
        (jobs) => this.handle(slot, jobs as RunJob[], work),
      );
    }
  }

  private async handle(slot: Slot, jobs: RunJob[], work: (runId: string) => Promise<void>): Promise<void> {
    slot.busy = true;
    const done = (async () => {
      for (const job of jobs) {
        const runId = job.data?.runId;
        if (typeof runId !== "string") {
          this.log.warn("queue job without a run id, dropped", { job: job.id });
          continue;
        }
        // `work` never rejects for a run's failure; if it does, the job is still done (a retry
        // would only find the run no longer QUEUED).
        await work(runId).catch((e: unknown) => this.log.error("queue work failed", { runId, error: describe(e) }));
      }
    })();
    this.inFlight.add(done);
    try {
      await done;
    } finally {
      this.inFlight.delete(done);
      slot.busy = false;
      // Drain a backlog without waiting out the poll: the worker fetches again at once.
      if (slot.id && !this.closed && this.slots.includes(slot)) this.boss.notifyWorker(slot.id);
    }
  }

  async pause(): Promise<void> {
    if (!this.slots.length) return;
    this.slots = [];
    // Workers stop fetching; the jobs they hold run on (and keep their heartbeat) until settled.
    await this.boss.offWork(this.queueName, { wait: false });
  }

  async depth(): Promise<number | null> {
    await this.ready();
    const { rows } = await this.boss
      .getDb()
      .executeSql(
        `SELECT count(*)::int AS n FROM ${this.schema}.job WHERE name = $1 AND state IN ('created', 'retry')`,
        [this.queueName],
      );
    return Number((rows[0] as { n: number } | undefined)?.n ?? 0);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.pause();
    this.closed = true;
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
    await this.starting?.catch(() => {});
    // Also after a start that failed: pg-boss may hold a pool open from it.
    await this.boss
      .stop({ graceful: true, close: true, timeout: 30_000 })
      .catch((e: unknown) => this.log.warn("pg-boss stop failed", { error: describe(e) }));
  }
}

/** The options `updateQueue` accepts (the policy and heartbeat are fixed at creation). */
function queueUpdate(q: Omit<Queue, "name">) {
  const { policy: _p, heartbeatSeconds: _h, ...rest } = q;
  return rest;
}

function describe(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (e && typeof e === "object" && "message" in e) return String((e as { message: unknown }).message);
  return String(e);
}
