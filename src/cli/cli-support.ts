import { InvalidArgumentError } from "commander";
import { isRole, type Role } from "../auth/roles.ts";
import { ApiError } from "../errors.ts";
import type { Scrubber } from "../secrets/secrets.ts";

/**
 * Exit codes: 0 ok / run SUCCEEDED (or QUEUED, for --background), 1 run FAILED, CANCELLED, PARKED or
 * OUTCOME_UNKNOWN, 2 bad usage or rejected request, 3 `tai runs wait --timeout` ran out with the run not ended.
 */
export const EXIT = { ok: 0, runFailed: 1, usage: 2, timedOut: 3 } as const;

// What a command runs on is imported when the command runs, not at start: `tai --help`
// loads commander and the command definitions only, a read of stored data no runtime.

/** Runs a command over a runtime with no server duties (cli-runtime.ts). */
export const withRuntime: typeof import("./cli-runtime.ts").withRuntime = async (needs, fn) =>
  (await import("./cli-runtime.ts")).withRuntime(needs, fn);
/** Runs a command over the stored data alone (open-store.ts). */
export const withStore: typeof import("./open-store.ts").withStore = async (fn) =>
  (await import("./open-store.ts")).withStore(fn);
/** The caller a command runs as (cli-runtime.ts). */
export const cliCaller: typeof import("./cli-runtime.ts").cliCaller = async (rt, key) =>
  (await import("./cli-runtime.ts")).cliCaller(rt, key);

export function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (e) {
    throw new InvalidArgumentError(`not valid JSON (${(e as Error).message})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError("must be a JSON object");
  return parsed as Record<string, unknown>;
}

export function parseRole(value: string): Role {
  const r = value.toUpperCase();
  if (!isRole(r)) throw new InvalidArgumentError("must be READER, USER or ADMIN");
  return r;
}

/** The CLI's errors are an edge like any other: scrubbed of the secrets known where they arose. */
export function scrubbedError(e: unknown, secrets: Scrubber): unknown {
  if (e instanceof ApiError) return new ApiError(e.code, secrets.scrubText(e.message), secrets.scrub(e.issues));
  if (e instanceof Error) e.message = secrets.scrubText(e.message);
  return e;
}
