/**
 * One place for every failure vocabulary of tai42:
 * - {@link ErrorKind}: the closed set a tool run can fail with (data on a run);
 * - {@link ToolError}: what a tool body throws to state a kind and a retry verdict;
 * - {@link ApiError}: a rejected request (bad write, forbidden, stale version), turned into
 *   a GraphQL error with `extensions.code` at the edge.
 */

/** The closed set of tool-run failure kinds. */
export const ERROR_KINDS = [
  "TIMEOUT",
  "RATE_LIMITED",
  "UNAVAILABLE",
  "NETWORK",
  "UPSTREAM",
  "INVALID_INPUT",
  "PERMISSION_DENIED",
  "NOT_FOUND",
  "CONFLICT",
  "CANCELLED",
  "INTERNAL",
  /** Its instance died mid-run and it was not re-run: its outcome is unknown (docs/run-lifecycle.md §11.4). */
  "INTERRUPTED",
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** The kinds `retryable: true` admits. */
export const DEFAULT_TRANSIENT_KINDS: readonly ErrorKind[] = ["TIMEOUT", "RATE_LIMITED", "UNAVAILABLE", "NETWORK"];

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === "string" && (ERROR_KINDS as readonly string[]).includes(value);
}

/** Options of a {@link ToolError}. */
export interface ToolErrorOptions {
  /** The failure kind. @default "INTERNAL" */
  kind?: ErrorKind;
  /** The raiser's own retry verdict; wins over the policy's kind list in both directions. */
  retryable?: boolean;
  /** The wait the failing server asked for; widens the backoff past its cap. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

const TOOL_ERROR = Symbol.for("tai42.ToolError");

/**
 * Whether `value` is a {@link ToolError}, from this copy of tai42 or another one (a tool module that loads its own copy
 * of the package): recognised by its brand, as `park` and `toolResult` are, not by class identity.
 */
export function isToolError(value: unknown): value is ToolError {
  return value instanceof Error && (value as unknown as Record<symbol, unknown>)[TOOL_ERROR] === true;
}

/** What a tool body throws to report a classified failure. */
export class ToolError extends Error {
  readonly kind: ErrorKind;
  readonly retryable: boolean | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, options: ToolErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "ToolError";
    this.kind = options.kind ?? "INTERNAL";
    this.retryable = options.retryable;
    this.retryAfterSeconds = options.retryAfterSeconds;
    Object.defineProperty(this, TOOL_ERROR, { value: true, enumerable: false });
  }

  /**
   * Normalises anything thrown by a body. A non-ToolError counts as INTERNAL with no
   * verdict, and its message is replaced: an unexpected error's text may carry secrets
   * or internals, so only its class name is kept.
   */
  static fromUnknown(error: unknown): ToolError {
    if (isToolError(error)) return error;
    return new ToolError(`the tool failed unexpectedly (${publicErrorName(error)})`, {
      kind: "INTERNAL",
      cause: error,
    });
  }
}

// Classes of database drivers and clients (Prisma, pg, better-sqlite3, driver adapters).
const DATABASE_ERROR = /prisma|driver|adapter|database|sqlite|postgres|^pg|sql/i;

/**
 * The class name of an unexpected error as a client may see it: a database driver's or
 * client's class is never named (it tells an attacker which database and driver run
 * here); it is "database error" instead.
 */
export function publicErrorName(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  return DATABASE_ERROR.test(name) || (error instanceof Error && DATABASE_ERROR.test(error.constructor?.name ?? ""))
    ? "database error"
    : name;
}

/** One validation problem. Every validator of tai42 reports a list of these. */
export interface Issue {
  /** JSON-pointer-like path of the offending value; "" is the root. */
  path: string;
  message: string;
}

/**
 * The codes a rejected API request carries in `extensions.code`. `CONFLICT` and
 * `UNAVAILABLE` raised by contention (`db/contention.ts`) also carry `retryable: true`.
 */
export type ApiErrorCode =
  "UNAUTHENTICATED" | "FORBIDDEN" | "BAD_USER_INPUT" | "INVALID_INPUT" | "NOT_FOUND" | "CONFLICT" | "UNAVAILABLE";

/** A rejected request. Domain code throws it; doors map it to their own error shape. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly issues: Issue[];
  /** The same request may succeed if sent again unchanged (contention, a busy database). */
  readonly retryable: boolean;
  /** When `retryable`: seconds to wait before sending it again, where the server knows better than "at once". */
  readonly retryAfterSeconds: number | undefined;
  /** The HTTP status a door with one answers (503: the instance sheds load), beside `Retry-After`. */
  readonly httpStatus: number | undefined;

  constructor(
    code: ApiErrorCode,
    message: string,
    issues: Issue[] = [],
    options: { retryable?: boolean; retryAfterSeconds?: number; httpStatus?: number } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.issues = issues;
    this.retryable = options.retryable ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.httpStatus = options.httpStatus;
  }

  static badInput(message: string, issues: Issue[] = []): ApiError {
    return new ApiError("BAD_USER_INPUT", message, issues);
  }
}

/**
 * The one table between the two vocabularies: the {@link ErrorKind} a refused request
 * ({@link ApiError}) becomes when it fails a run instead of a request (an agent run
 * refused a start, an agent dispatched as a tool). Every door reads it from here.
 */
export const KIND_OF_API_CODE: Readonly<Record<ApiErrorCode, ErrorKind>> = {
  UNAUTHENTICATED: "PERMISSION_DENIED",
  FORBIDDEN: "PERMISSION_DENIED",
  BAD_USER_INPUT: "INVALID_INPUT",
  INVALID_INPUT: "INVALID_INPUT",
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  UNAVAILABLE: "UNAVAILABLE",
};

/** Formats an issue list as one line, for messages and logs. */
export function describeIssues(issues: Issue[]): string {
  return issues.map((i) => `${i.path || "/"}: ${i.message}`).join("; ");
}
