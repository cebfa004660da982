/** One GraphQL error as the server sends it. */
export interface TaiErrorEntry {
  message: string;
  path?: readonly (string | number)[];
  /**
   * `code` is one of tai42's codes (UNAUTHENTICATED, FORBIDDEN, BAD_USER_INPUT, NOT_FOUND, CONFLICT,
   * SUBSCRIBER_LAGGING, AGENT_RUN_FAILED…); `issues` lists `{ path, message }` where there is more than one problem.
   */
  extensions?: { code?: string; issues?: { path: string; message: string }[]; [key: string]: unknown };
}

/**
 * The server refused: the answer carried GraphQL errors (on HTTP, SSE or graphql-ws).
 * `code` is the first error's `extensions.code`. Over graphql-ws, a socket the server
 * refused on `connection_init` (close code 4401 or 4403: a malformed, unknown or revoked
 * key) is reported the same way, as `UNAUTHENTICATED`, with the close reason as message.
 */
export class TaiGraphQLError extends Error {
  override readonly name = "TaiGraphQLError";
  /** The first error's `extensions.code`, when it has one. */
  readonly code: string | undefined;

  constructor(
    readonly errors: readonly TaiErrorEntry[],
    /** What data came with the errors (a partial result), if any. */
    readonly data?: unknown,
  ) {
    super(
      errors.map((e) => (e.extensions?.code ? `${e.extensions.code}: ${e.message}` : e.message)).join("; ") ||
        "the server answered with an empty error list",
    );
    this.code = errors.find((e) => e.extensions?.code)?.extensions?.code;
  }
}

/**
 * The exchange itself failed: the server could not be reached, answered with something
 * that is not a GraphQL response, or a stream's connection was lost and could not be
 * resumed within its retry budget.
 */
export class TaiTransportError extends Error {
  override readonly name = "TaiTransportError";
  /** The HTTP status, when the server answered with one. */
  readonly status?: number | undefined;
  /** The WebSocket close code, when a socket closed. */
  readonly closeCode?: number | undefined;

  constructor(
    message: string,
    options: { status?: number | undefined; closeCode?: number | undefined; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.closeCode = options.closeCode;
  }
}
