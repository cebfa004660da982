import { App } from "../../src/app.ts";
import { callerOf, type Role } from "../../src/auth/roles.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { createRuntime, type Runtime, type RuntimeOptions } from "../../src/runtime.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import { freshDatabase, testDbKind } from "./databases.ts";

export interface TestRuntime extends Runtime {
  /** Closes the runtime and drops its database. */
  dispose(): Promise<void>;
  /** Log lines written while the runtime ran (JSON strings). */
  logLines: string[];
}

/** A runtime over a fresh database (SQLite copy, or PostgreSQL when TAI_TEST_DB=postgres). */
export async function testRuntime(
  options: {
    app?: App;
    env?: NodeJS.ProcessEnv;
    config?: Partial<Config>;
    databaseUrl?: string;
    kind?: "sqlite" | "postgres";
    heartbeatSeconds?: number;
    traceExporter?: RuntimeOptions["traceExporter"];
    storeSweepMs?: number;
    /** "none": no instance row and no workers (a one-shot command's runtime). */
    duties?: RuntimeOptions["duties"];
    scheduleTickMs?: number;
  } = {},
): Promise<TestRuntime> {
  const db = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await freshDatabase(options.kind ?? testDbKind());
  const config = { ...loadConfig({ ...options.env }), databaseUrl: db.url, shutdownGraceSeconds: 2, ...options.config };
  const logLines: string[] = [];
  const log: Logger = createLogger({}, (line) => logLines.push(line));
  const rt = await createRuntime({
    config,
    app: options.app ?? new App(),
    loadModules: false,
    log,
    heartbeatSeconds: options.heartbeatSeconds,
    traceExporter: options.traceExporter,
    storeSweepMs: options.storeSweepMs,
    ...(options.duties ? { duties: options.duties } : {}),
    scheduleTickMs: options.scheduleTickMs,
  });
  return Object.assign(rt, {
    logLines,
    async dispose() {
      await rt.close();
      await db.drop();
    },
  });
}

export const as = (role: Role) => callerOf(role, `test-${role.toLowerCase()}`, `key-${role.toLowerCase()}`);

/** Stores a bare tools_agent run `id` (USER, no thread, no checkpoint), for tests that drive its log by hand. */
export async function storeAgentRun(rt: Runtime, id: string): Promise<void> {
  await rt.agents.store.create({
    id,
    agent: "tools_agent",
    threadId: null,
    input: {},
    callerRole: "USER",
    callerKey: null,
    checkpoint: null,
    startedAt: new Date().toISOString(),
  });
}
