import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anonymousCaller, callerOf, type Role } from "./auth/roles.ts";
import { loadConfig } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { callerAnswer } from "./dispatch/caller-answer.ts";
import type { RunRecord } from "./dispatch/run-record.ts";
import { createLogger } from "./log.ts";
import { createRuntime } from "./runtime.ts";
import type { Runtime } from "./runtime-types.ts";

/** Options of {@link toolHarness}. */
export interface ToolHarnessOptions {
  /** Modules to load (paths relative to the working directory); tools already imported by the test are served too. */
  modules?: string[];
  /** The role the runs are made as. @default the anonymous role of a loopback bind (USER) */
  role?: Role;
}

/** The tools registered on `app`, run through the chokepoint over a database of their own. */
export interface ToolHarness {
  /** Runs `tool` as a real run (validation, tiers, retries, the run log) and returns the run: `status`, `data`, … */
  run(tool: string, input?: Record<string, unknown>): Promise<RunRecord>;
  /** The runtime underneath, for what `run` does not cover. */
  runtime: Runtime;
  /** Closes the runtime and deletes its database. */
  close(): Promise<void>;
}

/**
 * A runtime for a test of one's tools (`import { toolHarness } from "tai42/testing"`): SQLite in a fresh temporary
 * folder, no demo tools, nothing logged, the tools registered on `app` (by the modules named, or imported by the
 * test) served. Each `run` goes through the same dispatch chokepoint as a GraphQL or MCP call (door `cli`).
 */
export async function toolHarness(options: ToolHarnessOptions = {}): Promise<ToolHarness> {
  const dir = mkdtempSync(join(tmpdir(), "tai42-test-"));
  const config = loadConfig({
    DATABASE_URL: `file:${join(dir, "test.db")}`,
    TAI_DEMO: "0",
    TAI_MODULES: (options.modules ?? []).join(","),
    TAI_SHUTDOWN_GRACE_SECONDS: "1",
  });
  await migrate(config.databaseUrl);
  const runtime = await createRuntime({ config, duties: "runs", log: createLogger({}, () => {}) });
  // Unless a role is named, the anonymous caller of a loopback bind: USER.
  const caller = options.role ? callerOf(options.role, "test") : anonymousCaller(config.anonymousRole)!;
  return {
    runtime,
    async run(tool, input = {}) {
      return callerAnswer(await runtime.dispatcher.runDetailed({ tool, input, caller, door: "cli" }));
    },
    async close() {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
