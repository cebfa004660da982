import {
  AgentRunsQuery,
  AgentStreamSubscription,
  AnswerInteractionMutation,
  DispatchMutation,
  RetryRunMutation,
  RunEventsSubscription,
  RunQuery,
  RunsQuery,
  SettleRunMutation,
  type AgentRunInput,
  type AgentRunPage,
  type AgentRunsFilter,
  type RunEvent,
  type RunsFilter,
  type SettledStatus,
  type StreamEvent,
  type ToolRun,
  type ToolRunPage,
} from "./documents.ts";
import { TaiTransportError } from "./errors.ts";
import type { TadaDocumentNode, Undefinable } from "./graphql.ts";
import { postOperation, queryOf, type HttpOptions } from "./http.ts";
import { retryPolicy, type RetryOptions } from "./retry.ts";
import { sseTransport } from "./sse-transport.ts";
import { agentStreamCursor, openStream, runEventsCursor, type Cursor } from "./stream-cursors.ts";
import { subscribeChannel } from "./subscribe-channel.ts";
import type { ToolInputArg, ToolMap, ToolName, ToolOutput, TypedToolRun, UntypedTools } from "./tool-types.ts";
import type { Transport } from "./transport.ts";
import { waitForRun, type WaitOptions, type WaitSources } from "./wait-for-run.ts";
import { wsTransport } from "./ws-transport.ts";

/** Options of {@link createTaiClient}. */
export interface TaiClientOptions {
  /** The URL of tai42's /graphql endpoint. In a browser it may be relative to the page ("/graphql"). */
  url: string;
  /**
   * An API key, sent as `Authorization: Bearer <key>` (and as graphql-ws `connectionParams.authorization`). Anonymous
   * without one. A function is asked for the credential in use at each request and each new connection: an OAuth
   * access token that is refreshed (call {@link TaiClient.reconnect} after it changed).
   */
  apiKey?: string | (() => string | null | undefined) | undefined;
  /**
   * How subscriptions travel: graphql-ws over one WebSocket, or GraphQL over SSE with one
   * streamed request per subscription. Requests always use HTTP POST.
   * @default "ws"
   */
  transport?: "ws" | "sse" | undefined;
  /**
   * A WebSocket constructor, for a runtime without a global one (Node before 22: `import WebSocket from "ws"`).
   * @default globalThis.WebSocket
   */
  webSocketImpl?: unknown;
  /** The fetch used for requests and SSE streams. @default globalThis.fetch */
  fetch?: typeof fetch | undefined;
  /** How `runEvents` and `agentStream` retry resuming after a lost connection. */
  retry?: RetryOptions | undefined;
}

/** Per-call options of a request. */
export interface RequestOptions {
  /** Aborts the request. */
  signal?: AbortSignal | undefined;
}

/** The arguments after a document: its variables (optional when the document requires none), then options. */
// `{} extends Variables`: true exactly when every variable is optional. `NoInfer`: the
// variables' type comes from the document alone; inferred from the object passed too, it
// would take that object's keys, and a variable the document does not declare would compile.
// `Variables |`: a generic caller's own `V` stays assignable; `Undefinable`: an optional variable may be `undefined`.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type OperationArgs<Variables> = {} extends Variables
  ? [variables?: NoInfer<Variables | Undefinable<Variables>>, options?: RequestOptions]
  : [variables: NoInfer<Variables | Undefinable<Variables>>, options?: RequestOptions];

/** A subscription as an async iterator: `for await` reads it; `break` (or `return()`) ends it on the server. */
export interface TaiSubscription<T> extends AsyncIterableIterator<T, undefined> {
  /** Ends the subscription, on the server too; a pending `next()` resolves as done. */
  return(): Promise<IteratorResult<T, undefined>>;
}

/** A subscription that resumes on its own after a lost connection (see {@link TaiClient.runEvents}). */
export interface TaiStream<T> extends TaiSubscription<T> {
  /** The `seq` of the last value delivered: where to continue from (`afterSeq`), e.g. after a page reload. */
  readonly lastSeq: number | undefined;
}

/** The options of a dispatch besides the tool and its input. */
export interface DispatchOptions extends RequestOptions {
  /** A re-issued dispatch with the same key, tool and caller returns the first run instead of running again. */
  idempotencyKey?: string | undefined;
  /** Shortens the tool's own timeout for this run. */
  timeoutSeconds?: number | undefined;
  /**
   * Runs it in the background: the run is answered at once, `QUEUED`, and an instance executes it
   * (docs/run-lifecycle.md §11); {@link TaiClient.waitForRun} waits for it to end.
   */
  background?: boolean | undefined;
}

/**
 * A typed client of one tai42 server. `Tools` types `dispatch`: the map `tai types` writes
 * (docs/client.md, "Typed tool calls"); without it any tool name and input compile.
 */
export interface TaiClient<Tools extends ToolMap<Tools> = UntypedTools> {
  /**
   * Runs a query or mutation over HTTP and returns its typed `data`; throws {@link TaiGraphQLError} when the server
   * answers with errors.
   */
  request<Result, Variables>(
    document: TadaDocumentNode<Result, Variables>,
    ...args: OperationArgs<Variables>
  ): Promise<Result>;
  /**
   * Runs a subscription and yields each event's typed `data`. An event carrying errors
   * ends it with a {@link TaiGraphQLError}; a lost connection ends it with a
   * {@link TaiTransportError} (this one does not resume: `runEvents` and `agentStream` do).
   */
  subscribe<Result, Variables>(
    document: TadaDocumentNode<Result, Variables>,
    ...args: OperationArgs<Variables>
  ): TaiSubscription<Result>;
  /**
   * Runs a tool through the dispatch chokepoint and returns its run: a failed, forbidden or invalid run is data
   * (`status: "FAILED"`, `errorKind`). With a tool map, `tool` must be one of its names, `input` must be that tool's
   * input, and the run's `data` is typed as its output (or null).
   */
  dispatch<Name extends ToolName<Tools>>(
    tool: Name,
    input: ToolInputArg<Tools, Name>,
    options?: DispatchOptions,
  ): Promise<TypedToolRun<ToolOutput<Tools, Name>>>;
  /**
   * Waits until the run's status is not QUEUED or RUNNING (SUCCEEDED, FAILED, CANCELLED, PARKED or
   * OUTCOME_UNKNOWN) and returns it. It follows the run's events (resumed across reconnects), and
   * polls `run(id)` should the stream be lost for good. Rejects with `signal`'s reason when it
   * aborts, with a `TimeoutError` DOMException after `timeoutMs`, and with a
   * {@link TaiGraphQLError} (`NOT_FOUND`) when there is no such run the caller may see.
   */
  waitForRun(id: string, options?: WaitOptions): Promise<ToolRun>;
  /** Runs an OUTCOME_UNKNOWN run again (ADMIN or its caller): it is `QUEUED` again. */
  retryRun(id: string, options?: RequestOptions): Promise<ToolRun>;
  /** Settles an OUTCOME_UNKNOWN run as SUCCEEDED, FAILED or CANCELLED, with an optional message. */
  settleRun(id: string, status: SettledStatus, message?: string, options?: RequestOptions): Promise<ToolRun>;
  /** A run by id; null when there is none the caller may see. */
  run(id: string, options?: RequestOptions): Promise<ToolRun | null>;
  /** One page of the runs the caller may see, newest first, with `totalCount` under the same filter. */
  runs(filter?: RunsFilter, options?: RequestOptions): Promise<ToolRunPage>;
  /** One page of the agent runs the caller may see, newest first, with `totalCount`. */
  agentRuns(filter?: AgentRunsFilter, options?: RequestOptions): Promise<AgentRunPage>;
  /** Answers an interaction of a parked run, and returns the run (resumed once all its interactions are answered). */
  answerInteraction(id: string, answer: unknown, options?: RequestOptions): Promise<ToolRun>;
  /**
   * Run events, each exactly once and in `seq` order, resumed on their own from the last
   * `seq` after a lost connection. With `afterSeq`, the stored events after it are
   * replayed first; without it, the stream starts live (and until its first event
   * arrives, a lost connection may lose events: pass `afterSeq` to be exact from the start).
   */
  runEvents(filter?: {
    afterSeq?: number | undefined;
    runId?: string | undefined;
    tool?: string | undefined;
  }): TaiStream<RunEvent>;
  /**
   * Starts an agent run (or, with `runId`, joins one after `afterSeq`) and yields its
   * events, each exactly once and in order, until the terminal event (`final: true`).
   * After a lost connection it joins the run again from the last `seq` seen; a connection
   * lost before the first event of a new run ends the stream (resubscribing could start a
   * second run). A failed run ends it with a {@link TaiGraphQLError} (`AGENT_RUN_FAILED`).
   */
  agentStream(
    input: AgentRunInput,
    options?: { runId?: string | undefined; afterSeq?: number | undefined },
  ): TaiStream<StreamEvent>;
  /**
   * Drops the subscription socket so that it connects again with the credential `apiKey` gives now (a refreshed
   * token): `runEvents` and `agentStream` resume from their last `seq`, other subscriptions end with a
   * {@link TaiTransportError}. Over SSE, where each subscription is its own request, it does nothing.
   */
  reconnect(): void;
  /** Ends every open subscription and closes the client's connections. */
  close(): Promise<void>;
}

/**
 * Creates a typed client of the tai42 server at `options.url`; works in browsers and in Node.
 * `createTaiClient<TaiTools>(…)`, with the map `tai types` wrote, types `dispatch`.
 */
export function createTaiClient<Tools extends ToolMap<Tools> = UntypedTools>(
  options: TaiClientOptions,
): TaiClient<Tools> {
  checkTransport(options.transport);
  const url = absoluteUrl(options.url);
  const http: HttpOptions = { url, apiKey: options.apiKey, fetch: options.fetch ?? globalFetch };
  const retry = retryPolicy(options.retry);
  const transport = openTransport(options, url);
  const open = new Set<{ return(): Promise<unknown> }>();
  let closed = false;

  const ensureOpen = () => {
    if (closed) throw new TaiTransportError("the client is closed");
  };

  function request<R, V>(document: TadaDocumentNode<R, V>, ...[variables, opts]: OperationArgs<V>): Promise<R> {
    const query = queryOf(document);
    const wire = variables ? { query, variables: variables as Record<string, unknown> } : { query };
    return postOperation(http, wire, opts?.signal) as Promise<R>;
  }

  function stream<T>(query: string, variables: Record<string, unknown>, cursor: Cursor<T>): TaiStream<T> {
    ensureOpen();
    return openStream(transport, retry, open, query, variables, cursor);
  }

  return {
    request,

    subscribe<R, V>(document: TadaDocumentNode<R, V>, ...[variables]: OperationArgs<V>): TaiSubscription<R> {
      ensureOpen();
      return subscribeChannel<R>(transport, open, queryOf(document), variables as Record<string, unknown> | undefined);
    },

    async dispatch<Name extends ToolName<Tools>>(
      tool: Name,
      input: ToolInputArg<Tools, Name>,
      { idempotencyKey, timeoutSeconds, background, signal }: DispatchOptions = {},
    ) {
      const vars = {
        input: { tool, input: input as Record<string, unknown>, idempotencyKey, timeoutSeconds, background },
      };
      const run = (await request(DispatchMutation, vars, { signal })).dispatch;
      // The server validated `input` against the tool's input schema and `data` against its output schema: the
      // schemas `tai types` wrote the map's types from.
      return run as unknown as TypedToolRun<ToolOutput<Tools, Name>>;
    },

    waitForRun: (id, opts) => waitForRun(waitSources(request, stream), id, opts),
    ...runMethods(request),
    ...streamMethods(stream),

    reconnect: () => transport.reconnect(),

    async close() {
      closed = true;
      await Promise.all([...open].map((s) => s.return()));
      await transport.dispose();
    },
  };
}

/** The client's `request`: one query or mutation over HTTP. */
type Request = <R, V>(d: TadaDocumentNode<R, V>, ...args: OperationArgs<V>) => Promise<R>;

/** The client's resuming subscriptions: a subscription's query and variables, and its cursor. */
type Stream = <T>(query: string, variables: Record<string, unknown>, cursor: Cursor<T>) => TaiStream<T>;

/** The client's methods over one run or page of runs: each one request. */
function runMethods(
  request: Request,
): Pick<TaiClient, "retryRun" | "settleRun" | "run" | "runs" | "agentRuns" | "answerInteraction"> {
  return {
    retryRun: async (id, opts) => (await request(RetryRunMutation, { id }, opts)).retryRun,
    settleRun: async (id, status, message, opts) =>
      (await request(SettleRunMutation, { id, status, message }, opts)).settleRun,

    run: async (id, opts) => (await request(RunQuery, { id }, opts)).run,
    runs: async (filter = {}, opts) => (await request(RunsQuery, filter, opts)).runs,

    async agentRuns(filter = {}, opts) {
      return (await request(AgentRunsQuery, filter, opts)).agentRuns;
    },

    async answerInteraction(id, answer, opts) {
      return (await request(AnswerInteractionMutation, { id, answer }, opts)).answerInteraction;
    },
  };
}

/** The client's streams that resume after a lost connection: run events and agent streams. */
function streamMethods(stream: Stream): Pick<TaiClient, "runEvents" | "agentStream"> {
  return {
    runEvents({ afterSeq, runId, tool } = {}) {
      return stream<RunEvent>(
        queryOf(RunEventsSubscription),
        { runId, tool, afterSeq },
        runEventsCursor(runId, tool, afterSeq),
      );
    },

    agentStream(input, { runId, afterSeq } = {}) {
      return stream<StreamEvent>(
        queryOf(AgentStreamSubscription),
        { input, runId, afterSeq },
        agentStreamCursor(input, runId, afterSeq),
      );
    },
  };
}

/** What `waitForRun` reads: the run, and its events from the first. */
function waitSources(request: Request, stream: Stream): WaitSources {
  return {
    run: async (id, o) => (await request(RunQuery, { id }, o)).run,
    runEvents: (f) =>
      stream<RunEvent>(queryOf(RunEventsSubscription), f, runEventsCursor(f.runId, undefined, f.afterSeq)),
  };
}

/** The global fetch, looked up when called (a test or polyfill may set it later). */
const globalFetch: HttpOptions["fetch"] = (input, init) => globalThis.fetch(input, init);

/** Refuses a transport other than "ws" and "sse" (a JavaScript caller may pass anything). */
function checkTransport(transport: unknown): void {
  if (transport !== undefined && transport !== "ws" && transport !== "sse") {
    throw new TypeError(`createTaiClient: transport must be "ws" or "sse" (got ${JSON.stringify(transport)})`);
  }
}

/** The transport of the client's subscriptions: graphql-ws by default, or GraphQL over SSE. */
function openTransport(options: TaiClientOptions, url: string): Transport {
  return options.transport === "sse"
    ? sseTransport({ url, apiKey: options.apiKey, fetch: options.fetch })
    : wsTransport({ url, apiKey: options.apiKey, webSocketImpl: options.webSocketImpl });
}

/** `url` as an absolute URL: a relative one resolves against the page in a browser. */
function absoluteUrl(url: string): string {
  const base = (globalThis as { location?: { href?: string } }).location?.href;
  try {
    return new URL(url, base).href;
  } catch {
    throw new TypeError(
      `createTaiClient: url must be an absolute http(s) URL of /graphql${base ? " or a path on this page's origin" : ""} (got "${url}")`,
    );
  }
}
