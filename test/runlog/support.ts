import { openDb, type Db } from "../../src/db/client.ts";
import { freePort, startCli, type CliProcess } from "../helpers/cli.ts";
import { until } from "../graphql/support.ts";

/**
 * Shared by the run-log tests: real `tai serve` processes, GraphQL over real HTTP, and
 * the stored log read straight from the database, checked against docs/run-lifecycle.md.
 */

/** The admin key every server here is started with (so two servers starting at once never race to create one). */
export const ADMIN_KEY = "tai42-runlog-test-admin-key";

/** A `tai serve` child process listening on 127.0.0.1. */
export interface ServerProcess {
  /** The http:// URL of /graphql. */
  url: string;
  process: CliProcess;
}

/** Starts `tai serve` over `databaseUrl` and resolves once it listens. */
export async function serve(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const proc = startCli(["serve"], {
    HOST: "127.0.0.1",
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    TAI_ADMIN_KEY: ADMIN_KEY,
    ...env,
  });
  try {
    await proc.waitFor("listening on", 90_000);
    await until("the listening line to be complete", () => /listening on http:\/\/\S+\/graphql/.test(proc.stdout()));
  } catch (e) {
    await proc.stop("SIGKILL");
    throw e;
  }
  return { url: /listening on (http:\/\/\S+\/graphql)/.exec(proc.stdout())![1], process: proc };
}

/** POSTs an operation (anonymously unless `key` is given); throws on transport or GraphQL errors. */
export async function post<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  key?: string,
): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json().catch(() => {
    throw new Error(`HTTP ${res.status} not JSON`);
  })) as { data?: T; errors?: unknown[] };
  if (body.errors?.length) throw new Error(`GraphQL errors (HTTP ${res.status}): ${JSON.stringify(body.errors)}`);
  return body.data!;
}

/** The fields of a dispatched run the tests read. */
export interface DispatchedRun {
  id: string;
  status: string;
  errorKind: string | null;
  errorMessage: string | null;
}

export const DISPATCH = /* GraphQL */ `
  mutation Dispatch($tool: String!, $input: JSONObject!, $idempotencyKey: String) {
    dispatch(input: { tool: $tool, input: $input, idempotencyKey: $idempotencyKey }) {
      id
      status
      errorKind
      errorMessage
    }
  }
`;

/** Dispatches `tool` over HTTP and resolves with the run the server answered. */
export async function dispatch(
  url: string,
  tool: string,
  input: Record<string, unknown>,
  idempotencyKey?: string,
): Promise<DispatchedRun> {
  return (await post<{ dispatch: DispatchedRun }>(url, DISPATCH, { tool, input, idempotencyKey })).dispatch;
}

/** A stored run, as much of it as the log checks need. */
export interface StoredRun {
  id: string;
  tool: string;
  status: string;
  errorKind: string | null;
  errorMessage: string | null;
  finishedAt: Date | null;
  input: unknown;
}

/** A stored event, with the status of the run snapshot it carries. */
export interface StoredEvent {
  seq: number;
  runId: string;
  type: string;
  snapshotStatus: string | undefined;
}

/** Every stored run and every stored event (oldest first). */
export async function readLog(db: Db): Promise<{ runs: StoredRun[]; events: StoredEvent[] }> {
  const runs = await db.run.findMany({
    select: { id: true, tool: true, status: true, errorKind: true, errorMessage: true, finishedAt: true, input: true },
  });
  const rows = await db.runEvent.findMany({
    orderBy: { seq: "asc" },
    select: { seq: true, runId: true, type: true, snapshot: true },
  });
  const events = rows.map((r) => ({
    seq: r.seq,
    runId: r.runId,
    type: r.type,
    snapshotStatus: (r.snapshot as { status?: string } | null)?.status,
  }));
  return { runs, events };
}

/** Opens the database at `url` (without starting a runtime, which would recover runs), runs `fn`, and closes it. */
export async function withDb<T>(url: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const { db } = await openDb(url);
  try {
    return await fn(db);
  } finally {
    await db.$disconnect();
  }
}

const FINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);

/**
 * What in a stored log breaks docs/run-lifecycle.md §6, one sentence per problem (empty
 * when none): every run's events start with exactly one RUN_STARTED; a finished run has
 * exactly one RUN_FINISHED, last, carrying the stored outcome; a RUNNING run has none;
 * no event belongs to a run that is not stored.
 */
export function logViolations(runs: StoredRun[], events: StoredEvent[]): string[] {
  const problems: string[] = [];
  const byRun = new Map<string, StoredEvent[]>(runs.map((r) => [r.id, []]));
  for (const e of events) {
    const own = byRun.get(e.runId);
    if (own) own.push(e);
    else problems.push(`event ${e.seq} (${e.type}) belongs to run ${e.runId}, which is not stored`);
  }
  for (const run of runs) {
    const own = byRun.get(run.id)!;
    const types = own.map((e) => e.type);
    const describe = `run ${run.id} (${run.status}) has events [${types.join(", ")}]`;
    if (types[0] !== "RUN_STARTED" || types.filter((t) => t === "RUN_STARTED").length !== 1)
      problems.push(`${describe}: not exactly one RUN_STARTED, first`);
    const finished = types.filter((t) => t === "RUN_FINISHED").length;
    if (FINAL.has(run.status)) {
      if (finished !== 1 || types.at(-1) !== "RUN_FINISHED")
        problems.push(`${describe}: not exactly one RUN_FINISHED, last`);
      else if (own.at(-1)!.snapshotStatus !== run.status)
        problems.push(`${describe}: its RUN_FINISHED carries status ${own.at(-1)!.snapshotStatus}`);
      if (!run.finishedAt) problems.push(`${describe}: finished without finishedAt`);
    } else if (finished !== 0) problems.push(`${describe}: RUN_FINISHED on a run that is not finished`);
    // A run whose outcome is unknown ends its log with RUN_INTERRUPTED, carrying that status (run-lifecycle §11.1).
    if (run.status === "OUTCOME_UNKNOWN" && (types.at(-1) !== "RUN_INTERRUPTED" || !run.finishedAt))
      problems.push(`${describe}: an unknown outcome not closed by RUN_INTERRUPTED`);
  }
  return problems;
}
