import type { Caller } from "../auth/roles.ts";
import { loadConfig } from "../config.ts";
import { migrate } from "../db/migrate.ts";
import { ApiError } from "../errors.ts";
import { createLogger } from "../log.ts";
import { createRuntime, type Runtime, type RuntimeOptions } from "../runtime.ts";
import { authenticate } from "../server/authenticate.ts";
import { scrubbedError } from "./cli-support.ts";

/** What a one-shot command needs of a runtime. */
export interface CliRuntimeNeeds {
  /** `"runs"` for a command that runs tools; `"none"` for one that reads or writes stored data. */
  duties: Exclude<RuntimeOptions["duties"], "server" | undefined>;
  /** Whether its writes must reach the other instances (through Redis when configured). @default true */
  publishes?: boolean;
}

/**
 * Runs `fn` over a runtime opened for one command: the database migrated, the surface
 * complete (modules, agents, stored presets and the active manifest), but none of a
 * server's duties (see {@link RuntimeOptions.duties}). Errors leave scrubbed.
 */
export async function withRuntime<T>(needs: CliRuntimeNeeds, fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const loaded = loadConfig();
  // A command that publishes nothing need not connect to Redis.
  const config = needs.publishes === false ? { ...loaded, redisUrl: undefined } : loaded;
  await migrate(config.databaseUrl);
  const rt = await createRuntime({ config, duties: needs.duties, log: createLogger({ service: "tai-cli" }) });
  try {
    return await fn(rt);
  } catch (e) {
    throw scrubbedError(e, rt.secrets);
  } finally {
    await rt.close();
  }
}

/** The CLI caller: the --key (or TAI_KEY) holder, else the configured anonymous role. */
export async function cliCaller(rt: Runtime, key?: string): Promise<Caller> {
  const caller = await authenticate(rt, key ? `Bearer ${key}` : undefined);
  if (!caller)
    throw new ApiError(
      "UNAUTHENTICATED",
      "anonymous access is off (TAI_ANONYMOUS_ROLE=NONE): pass --key or set TAI_KEY",
    );
  return caller;
}
