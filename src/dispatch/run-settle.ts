import { REDACTED } from "../auth/tiers.ts";
import { describeIssues, ToolError, type ErrorKind } from "../errors.ts";
import type { Logger } from "../log.ts";
import { PendingOutcomes } from "../runlog/pending-outcomes.ts";
import type { ExecutedEntry } from "./executed-entry.ts";
import type { Secrets, SecretScope } from "../secrets/secrets.ts";
import { scrubAttempt, scrubRun } from "../secrets/value-fields.ts";
import { validate } from "../tools/json-schema.ts";
import type { ToolResult } from "../tools/result.ts";
import type { RetryLoopOutcome } from "./retry-loop.ts";
import type { AttemptRecord, RunEventRecord, RunRecord } from "./run-record.ts";
import type { DispatchDeps, RunOutcome } from "./request.ts";

/**
 * The last step of a run (docs/run-lifecycle.md §2, steps 7–8): the record as stored and
 * published, scrubbed of every secret it may hold, and its closing event on the bus. It
 * also holds, per run, the secrets its secret-tier child runs taught it.
 */
export class RunSettle {
  /** Per run: a scope of the runtime's secrets holding what its secret-tier child runs returned. */
  private readonly learned = new Map<string, SecretScope>();
  /** The outcomes computed here that the database did not take yet, by run id. */
  readonly pending = new PendingOutcomes<RunOutcome, RunEventRecord | null>();
  /**
   * The runs whose body redacted a value (`ctx.redact`): their outcome rewrites what they stored before
   * (`runlog/rescrub.ts`).
   */
  private readonly redacting = new Set<string>();
  /** The runs with a rescrub queued and not yet written. */
  private readonly rescrubbing = new Set<string>();

  constructor(private readonly deps: Pick<DispatchDeps, "runs" | "bus" | "secrets" | "instanceId">) {}

  /**
   * The record as stored and published: SECRET tiers redacted, known secret values scrubbed from its value fields only.
   */
  snapshot(run: RunRecord, redact: boolean): RunRecord {
    const scrubbed = scrubRun(this.scrubber(run.id), run);
    if (!redact) return scrubbed;
    return {
      ...scrubbed,
      input: REDACTED,
      content: run.content.length ? [{ type: "text", text: REDACTED }] : [],
      data: run.data === null ? null : REDACTED,
      details: run.details === null ? null : REDACTED,
    };
  }

  /** What scrubs a run's records: its scope once its secret children taught it values, else the runtime's secrets. */
  scrubber(runId: string): Secrets | SecretScope {
    return this.learned.get(runId) ?? this.deps.secrets;
  }

  /** The run's own scope of secrets, created on first use. */
  scopeOf(runId: string): SecretScope {
    return this.learned.get(runId) ?? this.learned.set(runId, this.deps.secrets.scope()).get(runId)!;
  }

  /** The run's scope starts under its calling run's (`RunRequest.secrets`), before anything of it is stored. */
  inherit(runId: string, parent: SecretScope): void {
    this.learned.set(runId, parent.scope());
  }

  /** The input's declared secrets (`writeOnly`, `tools/write-only.ts`), known before the run is first stored. */
  declare(runId: string, values: readonly string[]): void {
    // The cross-run cache too: the body may pass them on (a child run, the store, a park, a log line).
    if (values.length) values.forEach((v) => this.deps.secrets.remember(v, this.scopeOf(runId)));
  }

  /** Drops what a run that was never executed here learned (a re-issued idempotency key follows the first run). */
  forget(runId: string): void {
    this.learned.delete(runId);
  }

  /**
   * The run's body redacted a value (already in its scope): what the run stored before is
   * rewritten scrubbed now, ordered with its other writes, and again with its outcome.
   */
  redacted(runId: string, log: Logger): void {
    this.redacting.add(runId);
    // One queued at a time: it reads the scope when it is written, so the values redacted
    // meanwhile are in it (one redacted while it is being written waits for the outcome's).
    if (this.rescrubbing.has(runId)) return;
    this.rescrubbing.add(runId);
    this.deps.runs
      .rescrub(runId, this.scopeOf(runId))
      .catch((e: Error) => log.warn("rescrubbing a run's stored rows failed; its outcome will", { error: e.message }))
      .finally(() => this.rescrubbing.delete(runId));
  }

  /** The scope a run's outcome (or park) rewrites its stored rows with, when its body redacted a value. */
  rescrubOf(runId: string): SecretScope | undefined {
    return this.redacting.has(runId) ? this.scopeOf(runId) : undefined;
  }

  publish(event: RunEventRecord): void {
    this.deps.bus.publish("runEvent", event);
  }

  /**
   * Stores the run's outcome with its RUN_FINISHED event (and `last`, the attempt not
   * stored yet), forgets what the run learned, and publishes the event. An outcome the
   * database does not take is kept and stored later ({@link pending}): the caller is
   * answered the outcome its run computed, and the event is published once stored.
   */
  async finish(run: RunRecord, last: AttemptRecord | null, redact: boolean, log: Logger): Promise<RunOutcome> {
    const ended = await this.persistOutcome(run, last, redact, log);
    this.learned.delete(run.id);
    this.redacting.delete(run.id);
    if (!ended) return this.pending.get(run.id)!;
    this.publish(ended);
    return { run: ended.run, output: { ...run } };
  }

  /** A rejection (docs/run-lifecycle.md §2, steps 1–4) is still a run: stored and published, started and finished. */
  async reject(run: RunRecord, kind: ErrorKind, message: string, details?: unknown): Promise<RunOutcome> {
    // Scrubbed like every snapshot: its scope holds the input's declared secrets, if any (`declare`).
    const ended = this.snapshot(
      { ...run, ...failure(kind, message), details: details ?? null, finishedAt: new Date().toISOString() },
      false,
    );
    const first = this.snapshot(run, false);
    this.forget(run.id);
    const started = await this.deps.runs.start(first, null, this.deps.instanceId);
    this.publish(started!);
    const finished = await this.deps.runs.finish(ended, null);
    this.publish(finished);
    return both(ended);
  }

  /**
   * Persists the outcome; null when the database did not take it (an outage, a full or
   * read-only disk): it is kept then, written again until stored, and published once
   * stored (docs/run-lifecycle.md §8, "Outcomes after an outage").
   */
  private async persistOutcome(
    run: RunRecord,
    last: AttemptRecord | null,
    redact: boolean,
    log: Logger,
  ): Promise<RunEventRecord | null> {
    const snapshot = this.snapshot(run, redact);
    // The last attempt is stored as its own row: scrubbed like the run it belongs to.
    const attempt = last && scrubAttempt(this.scrubber(run.id), last);
    // The rescrub scope is taken now: a kept outcome written later still rewrites the run's earlier rows.
    const rescrub = this.rescrubOf(run.id);
    const write = () => this.deps.runs.finish(snapshot, attempt, "RUN_FINISHED", rescrub);
    try {
      return await write();
    } catch (error) {
      if (
        !this.pending.keep(run.id, {
          value: { run: snapshot, output: { ...run } },
          write,
          onStored: (ended) => ended && this.publish(ended),
          log,
          error,
        })
      )
        throw error;
      return null;
    }
  }
}

/**
 * Writes the retry loop's outcome onto the record: SUCCEEDED once the output validates
 * against the entry's output schema, else FAILED (or CANCELLED) with the error's kind.
 */
export function applyOutcome(
  entry: ExecutedEntry,
  run: RunRecord,
  outcome: RetryLoopOutcome<ToolResult>,
  last: AttemptRecord | null,
  redact: boolean,
  log: Logger,
): void {
  if (outcome.ok) {
    const result = outcome.value;
    const problems = entry.outputSchema && result.data !== undefined ? validate(entry.outputSchema, result.data) : [];
    if (entry.outputSchema && result.data === undefined)
      problems.push({ path: "", message: "the tool returned no structured data, but declares an output schema" });
    if (problems.length) {
      Object.assign(
        run,
        failure(
          "INTERNAL",
          `the output of "${entry.name}" does not match its output schema: ${redact ? "see details" : describeIssues(problems)}`,
        ),
      );
      if (last) Object.assign(last, { errorKind: "INTERNAL", errorMessage: run.errorMessage });
    } else
      Object.assign(run, {
        status: "SUCCEEDED",
        content: result.content,
        data: result.data ?? null,
        details: result.details ?? null,
        terminate: result.terminate,
      });
    return;
  }
  const e = outcome.error;
  const returned = e instanceof ReturnedError ? e.result : null;
  Object.assign(run, failure(e.kind, e.message), e.kind === "CANCELLED" ? { status: "CANCELLED" } : {});
  if (returned)
    Object.assign(run, {
      content: returned.content,
      details: returned.details ?? null,
      terminate: returned.terminate,
      data: returned.data ?? null,
    });
  if (e.kind === "INTERNAL" && !(e instanceof ReturnedError) && !(e.cause === undefined))
    log.error("tool body threw", { error: redact ? "[redacted]" : String(e.cause) });
}

/** An outcome whose stored record is also its output (nothing to redact). */
export function both(run: RunRecord): RunOutcome {
  return { run, output: run };
}

/** The fields of a FAILED record. */
export function failure(kind: ErrorKind, message: string) {
  return { status: "FAILED" as const, isError: true, errorKind: kind, errorMessage: message };
}

/** A body returned an error result (not thrown): never retried, recorded with its kind. */
export class ReturnedError extends ToolError {
  constructor(readonly result: ToolResult) {
    super(result.errorMessage ?? "the tool reported an error", {
      kind: result.errorKind ?? "UPSTREAM",
      retryable: false,
    });
  }
}
