import { ApiError, type Issue } from "../errors.ts";

/** The longest idempotency key a dispatch accepts. */
export const IDEMPOTENCY_KEY_MAX = 200;

/** Whether a per-attempt timeout override is usable: a number of seconds > 0 (NaN is not). */
export function isTimeoutInBounds(seconds: number): boolean {
  return seconds > 0;
}

/** Whether an idempotency key is usable: 1 to {@link IDEMPOTENCY_KEY_MAX} characters. */
export function isIdempotencyKeyInBounds(key: string): boolean {
  return key.length >= 1 && key.length <= IDEMPOTENCY_KEY_MAX;
}

/** The options of a dispatch these bounds judge (absent or null: not given). */
export interface DispatchOptions {
  timeoutSeconds?: number | null;
  idempotencyKey?: string | null;
}

/**
 * The bounds every dispatch's options obey, on every door (the chokepoint applies them,
 * docs/run-lifecycle.md): BAD_USER_INPUT naming the first option out of bounds, its issue
 * path under `at` (a door names its own argument, e.g. GraphQL's `/input`).
 */
export function checkDispatchBounds(options: DispatchOptions, at = ""): void {
  if (options.timeoutSeconds != null && !isTimeoutInBounds(options.timeoutSeconds))
    refuse("timeoutSeconds must be > 0", { path: `${at}/timeoutSeconds`, message: "must be > 0" });
  if (options.idempotencyKey != null && !isIdempotencyKeyInBounds(options.idempotencyKey))
    refuse(`idempotencyKey must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`, {
      path: `${at}/idempotencyKey`,
      message: `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`,
    });
}

function refuse(message: string, issue: Issue): never {
  throw ApiError.badInput(message, [issue]);
}
