import { isDeepStrictEqual } from "node:util";
import { ApiError } from "../errors.ts";
import type { RunReplay } from "../runlog/jobs.ts";
import type { RunRecord } from "./run-record.ts";
import type { RunRequest } from "./request.ts";

/**
 * What a run stores so that another instance may execute it (docs/run-lifecycle.md §11.4): its dispatch options, and
 * whether its stored input is the input it runs with (a background run, a re-drive and an operator's retry need it).
 */
export function replayOf(
  req: RunRequest,
  run: RunRecord,
  redact: boolean,
  declared: readonly string[],
  storedInput: unknown,
): RunReplay {
  const replayable =
    !redact &&
    declared.length === 0 &&
    req.storedInput === undefined &&
    req.live === undefined &&
    isDeepStrictEqual(storedInput, req.input);
  return { idempotencyKey: req.idempotencyKey ?? null, timeoutSeconds: req.timeoutSeconds ?? null, replayable };
}

/**
 * A background run's input is stored to be executed elsewhere: one that cannot be stored as it is is refused before any
 * run exists (BAD_USER_INPUT, naming why).
 */
export function refuseUnstorable(tool: string, replay: RunReplay, redact: boolean): void {
  if (replay.replayable) return;
  const why = redact
    ? `"${tool}" is a secret-tier tool, whose input is never stored`
    : `its input holds a secret (a writeOnly field, or a value the server keeps secret), which is never stored`;
  throw ApiError.badInput(
    `a background run's input is stored for the instance that executes it, and ${why}: run it synchronously`,
    [{ path: "background", message: "cannot be true for this input" }],
  );
}
