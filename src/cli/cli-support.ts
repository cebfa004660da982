import { InvalidArgumentError } from "commander";
import { isRole, type Caller, type Role } from "../auth/roles.ts";
import { loadConfig } from "../config.ts";
import { migrate } from "../db/migrate.ts";
import { ApiError } from "../errors.ts";
import { createLogger } from "../log.ts";
import { createRuntime, type Runtime } from "../runtime.ts";
import { authenticate } from "../server/authenticate.ts";

/** Exit codes: 0 ok / run SUCCEEDED, 1 run FAILED or CANCELLED, 2 bad usage or rejected request. */
export const EXIT = { ok: 0, runFailed: 1, usage: 2 } as const;

export async function withRuntime<T>(fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const config = loadConfig();
  await migrate(config.databaseUrl);
  const rt = await createRuntime({ config, log: createLogger({ service: "tai-cli" }) });
  try {
    return await fn(rt);
  } catch (e) {
    // The CLI's errors are an edge like any other: scrubbed of the runtime's secrets.
    if (e instanceof ApiError) throw new ApiError(e.code, rt.secrets.scrubText(e.message), rt.secrets.scrub(e.issues));
    if (e instanceof Error) e.message = rt.secrets.scrubText(e.message);
    throw e;
  } finally {
    await rt.close();
  }
}

export function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (e) {
    throw new InvalidArgumentError(`not valid JSON (${(e as Error).message})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new InvalidArgumentError("must be a JSON object");
  return parsed as Record<string, unknown>;
}

export function parseRole(value: string): Role {
  const r = value.toUpperCase();
  if (!isRole(r)) throw new InvalidArgumentError("must be READER, USER or ADMIN");
  return r;
}

/** The CLI caller: the --key (or TAI_KEY) holder, else the configured anonymous role. */
export async function cliCaller(rt: Runtime, key?: string): Promise<Caller> {
  const caller = await authenticate(rt, key ? `Bearer ${key}` : undefined);
  if (!caller) throw new ApiError("UNAUTHENTICATED", "anonymous access is off (TAI_ANONYMOUS_ROLE=NONE): pass --key or set TAI_KEY");
  return caller;
}

