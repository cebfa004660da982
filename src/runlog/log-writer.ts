import type { Driver } from "../db/client.ts";
import { storableJson } from "../db/storable.ts";
import type { Scrubber } from "../secrets/secrets.ts";
import { GroupCommit } from "./group-commit.ts";
import type { JobResult, LogBackend, LogJob } from "./jobs.ts";
import { pgLog } from "./pg-log.ts";
import { sqliteLog } from "./sqlite-log.ts";

/**
 * The one writer of the run log, for tool runs and agent runs alike
 * (docs/run-lifecycle.md §9): jobs are group-committed (`group-commit.ts`) through a few
 * statements prepared once on the driver under Prisma's adapter (`sqlite-log.ts`,
 * `pg-log.ts`). Every job is scrubbed of known secrets here, before it reaches a
 * statement: these writes do not pass Prisma's scrubbing extension.
 */
export class LogWriter {
  private readonly commits: GroupCommit<LogJob, JobResult>;

  constructor(driver: Driver, private readonly scrubber: Scrubber) {
    const backend: LogBackend = driver.kind === "sqlite" ? sqliteLog(driver.connection) : pgLog(driver.pool);
    this.commits = new GroupCommit((jobs) => backend.write(jobs));
  }

  /** Writes `job` with the next batch; resolves once that batch is committed. */
  write(job: LogJob): Promise<JobResult> {
    return this.commits.submit(this.stored(job));
  }

  /** Batches written so far and the jobs in them. */
  get stats(): { batches: number; jobs: number } {
    return this.commits.stats;
  }

  /** Resolves once everything submitted so far is written. */
  idle(): Promise<void> {
    return this.commits.idle();
  }

  private stored(job: LogJob): LogJob {
    const clean = this.scrubber.scrub(job);
    if (clean.kind === "agentEvent" || clean.kind === "agentFinish") return { ...clean, payload: storableJson(clean.payload) };
    return clean;
  }
}
