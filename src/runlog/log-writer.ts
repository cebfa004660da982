import type { Driver } from "../db/client.ts";
import { storableJson, storableText } from "../db/storable.ts";
import type { Scrubber } from "../secrets/secrets.ts";
import { scrubJob } from "../secrets/value-fields.ts";
import { GroupCommit } from "./group-commit.ts";
import { isolatingFailures, type JobResult, type LogJob } from "./jobs.ts";
import { pgLog } from "./pg-log.ts";
import { sqliteLog } from "./sqlite-log.ts";
import { readRun } from "./sqlite-read.ts";

/**
 * The one writer of the run log, for tool runs and agent runs alike
 * (docs/run-lifecycle.md §9): jobs are group-committed (`group-commit.ts`) through a few
 * statements prepared once on the driver under Prisma's adapter (`sqlite-log.ts`,
 * `pg-log.ts`). Every job's values are scrubbed of known secrets here, before it reaches
 * a statement (`secrets/value-fields.ts`: ids, statuses, names, types and times are never
 * rewritten): these writes do not pass Prisma's scrubbing extension.
 */
const isAgentJob = (j: LogJob) => j.kind === "agentEvent" || j.kind === "agentFinish" || j.kind === "agentCheckpoint";

export class LogWriter {
  private readonly commits: GroupCommit<LogJob, JobResult>;

  constructor(
    private readonly driver: Driver,
    private readonly scrubber: Scrubber,
    /** Told each batch's size and the seconds it took to write and commit (metrics). */
    onBatch?: (size: number, seconds: number) => void,
    /** This instance: a run's execution writes are stored only while it owns the run (docs/run-lifecycle.md §11.4). */
    owner: string | null = null,
  ) {
    const isolated = isolatingFailures(
      driver.kind === "sqlite" ? sqliteLog(driver.connection, owner) : pgLog(driver.pool, owner),
    );
    // Tool-run writes and agent stream entries are separate transactions of a batch, so
    // that a failure of one never rolls back (and then repeats) the other.
    const write = async (jobs: LogJob[]) => {
      const agent = jobs.filter(isAgentJob);
      const runs = jobs.filter((j) => !isAgentJob(j));
      const [a, r] = await Promise.all([agent.length ? isolated(agent) : [], runs.length ? isolated(runs) : []]);
      let ai = 0;
      let ri = 0;
      return jobs.map((j) => (isAgentJob(j) ? a[ai++] : r[ri++]));
    };
    this.commits = new GroupCommit(
      onBatch
        ? async (jobs) => {
            const started = performance.now();
            try {
              return await write(jobs);
            } finally {
              onBatch(jobs.length, (performance.now() - started) / 1000);
            }
          }
        : write,
    );
  }

  /** Writes `job` with the next batch; resolves once that batch is committed. */
  write(job: LogJob): Promise<JobResult> {
    return this.commits.submit(this.stored(job));
  }

  /**
   * SQLite: run `id` with its attempts, as Prisma reads it, from statements prepared on the log's connection (a read
   * in a transaction of its own, never inside one of Prisma's); null when not stored. PostgreSQL: undefined (the
   * caller reads through Prisma).
   */
  async readRun(id: string): Promise<Record<string, unknown> | null | undefined> {
    if (this.driver.kind !== "sqlite") return undefined;
    const d = await this.driver.connection();
    return d.transaction(() => readRun(d, id));
  }

  /** How long the oldest write not yet committed has waited, in ms. */
  stalledMs(): number {
    return this.commits.stalledMs();
  }

  /** Resolves once everything submitted so far is written. */
  idle(): Promise<void> {
    return this.commits.idle();
  }

  private stored(job: LogJob): LogJob {
    const clean = scrubJob(this.scrubber, job);
    // An agent's entries are its own: their type, like their payload, may hold what no column stores (a NUL).
    if (clean.kind === "agentEvent")
      return { ...clean, type: storableText(clean.type), payload: storableJson(clean.payload) };
    if (clean.kind === "agentCheckpoint") return { ...clean, progress: storableJson(clean.progress) };
    if (clean.kind === "agentFinish")
      return {
        ...clean,
        type: storableText(clean.type),
        payload: storableJson(clean.payload),
        checkpoint: storableJson(clean.checkpoint),
      };
    return clean;
  }
}
