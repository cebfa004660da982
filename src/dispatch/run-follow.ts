import { contentionError } from "../db/contention.ts";
import { ApiError } from "../errors.ts";
import type { RunSettle } from "./run-settle.ts";
import type { DispatchDeps, RunRequest } from "./request.ts";
import { isFinal, type RunRecord } from "./run-record.ts";

/**
 * A re-issued dispatch (the same idempotency key) never hangs on a database that does not
 * answer (docs/run-lifecycle.md §8, "Outcomes after an outage"): each read it makes is
 * bounded by this, and past it (or on a read that fails) it is answered UNAVAILABLE with
 * {@link FOLLOW_RETRY_AFTER_SECONDS}.
 */
export const FOLLOW_READ_MS = 1500;

/** The `retryAfterSeconds` of a re-issued dispatch answered UNAVAILABLE. */
export const FOLLOW_RETRY_AFTER_SECONDS = 2;

/** The UNAVAILABLE a re-issued dispatch answers when the first run's outcome can be neither read nor known here. */
export function followUnavailable(error?: unknown): ApiError {
  const refused = contentionError(error);
  return new ApiError(
    "UNAVAILABLE",
    `the outcome of the first run with this idempotency key cannot be read now (the database is out of reach or busy) and is not known on this instance; send the request again with the same key`,
    [],
    { retryable: true, retryAfterSeconds: Math.max(FOLLOW_RETRY_AFTER_SECONDS, refused?.retryAfterSeconds ?? 0) },
  );
}

/** A new dispatch while this instance holds as many unstored outcomes as it may keep: refused before any run exists. */
export function keptFull(): ApiError {
  return new ApiError(
    "UNAVAILABLE",
    "this instance holds too many run outcomes the database has not taken yet; no new run is started until they are stored",
    [],
    {
      retryable: true,
      retryAfterSeconds: FOLLOW_RETRY_AFTER_SECONDS,
    },
  );
}

/** The idempotency scope of a dispatch of `entry` (its caller's key, the entry, its key), or null without a key. */
export function idempotencyScope(req: Pick<RunRequest, "caller" | "idempotencyKey">, entry: string): string | null {
  if (!req.idempotencyKey) return null;
  return `${req.caller.keyId ?? `anonymous:${req.caller.role}`}\u0000${entry}\u0000${req.idempotencyKey}`;
}

/** A read of the store, bounded (a re-issued key's: {@link boundedRead}) or not. */
export type ReadBound = <T>(r: () => Promise<T>) => Promise<T>;

/** `read`, answered within {@link FOLLOW_READ_MS}: a read that fails or takes longer is {@link followUnavailable}. */
export async function boundedRead<T>(read: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      read(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("the read took too long")), FOLLOW_READ_MS);
        timer.unref();
      }),
    ]);
  } catch (e) {
    throw e instanceof ApiError ? e : followUnavailable(e);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The idempotency scopes of the runs this instance works on (executing, or holding an
 * outcome not stored yet): a re-issued key whose first run is here is answered from here,
 * without reading the database.
 */
export class LocalScopes {
  private readonly runs = new Map<string, string>();

  /** The run holding `scope` on this instance. */
  get(scope: string): string | undefined {
    return this.runs.get(scope);
  }

  /** Records that `runId` holds `scope` here until `held` settles. */
  hold(scope: string, runId: string, held: Promise<unknown>): void {
    this.runs.set(scope, runId);
    const release = () => {
      if (this.runs.get(scope) === runId) this.runs.delete(scope);
    };
    held.then(release, release);
  }
}

/**
 * What holds an ended run in flight (`InFlight.add`): its kept outcome until it is stored
 * (or given up at shutdown), if the database did not take it at once. An execution that
 * threw has its FAILED outcome kept too (`run-salvage.ts`).
 */
export function untilStored(settle: RunSettle, runId: string): () => Promise<void> | undefined {
  return () => (settle.pending.get(runId) === undefined ? undefined : settle.pending.settled(runId));
}

/**
 * Resolves with run `runId` once it is stored no longer RUNNING or QUEUED; the bus wakes it, a poll backs it up.
 * Rejects with `signal`'s reason once it aborts.
 */
export async function awaitStored(
  deps: Pick<DispatchDeps, "bus" | "runs">,
  runId: string,
  read: ReadBound,
  signal?: AbortSignal,
): Promise<RunRecord> {
  let wake: () => void = () => {};
  const stop = () => wake();
  signal?.addEventListener("abort", stop, { once: true });
  const unlisten = deps.bus.listen("runEvent", (e) => {
    if (e.runId === runId && (e.type === "RUN_PARKED" || e.type === "RUN_FINISHED" || e.type === "RUN_INTERRUPTED"))
      wake();
  });
  try {
    for (let delay = 50; !signal?.aborted; delay = Math.min(delay * 2, 1000)) {
      const run = await read(() => deps.runs.get(runId));
      if (!run) throw new Error(`run ${runId} vanished`);
      if (isFinal(run.status)) return run;
      // The bus wakes us early; the poll covers a Redis outage.
      await new Promise<void>((r) => {
        const t = setTimeout(r, delay);
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
    throw signal!.reason;
  } finally {
    signal?.removeEventListener("abort", stop);
    unlisten();
  }
}
