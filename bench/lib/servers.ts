import { startChild, type Child } from "./child.ts";
import type { ScratchDatabases, ScratchDb } from "./databases.ts";

/** A tai42 server child with its scratch database and API key. */
export interface Tai42Child extends Child {
  db: ScratchDb;
  key: string;
}

export const startRaw = () => startChild("raw node:http", "servers/raw-http.ts", {});
export const startYoga = () => startChild("bare yoga", "servers/bare-yoga.ts", {});
export const startMcp = (mode: "stateless" | "session") =>
  startChild(`MCP SDK (${mode})`, "servers/mcp-sdk.ts", { mode });

/** Options of {@link startTai42}. */
export interface Tai42Options {
  deltas?: number;
  nodeArgs?: string[];
  stubRunWrites?: boolean;
  /** A database shared with other instances: used as it is and not dropped when this child stops. */
  db?: ScratchDb;
  /** Events through Redis (REDIS_URL, TAI_REDIS_PREFIX) instead of in-process. */
  redis?: { url: string; prefix: string };
  /** Told apart in error messages when several instances run. */
  label?: string;
  /** A value the server knows as a secret (as if a tool had resolved it): its streams lag by its longest form. */
  secret?: string;
  /** The paced model's words and pace (bench/servers/bench-model.ts). */
  paced?: { words: number; chunkMs: number };
  /** Extra environment for the child (e.g. `TAI_BENCH_EVENT_LOCK`, the event-order baseline). */
  env?: NodeJS.ProcessEnv;
}

/** Starts tai42 on a fresh scratch database (dropped when the child stops), or on `options.db`. */
export async function startTai42(
  dbs: ScratchDatabases,
  kind: "sqlite" | "postgres",
  options: Tai42Options = {},
): Promise<Tai42Child> {
  const db = options.db ?? (await dbs.create(kind));
  const owned = !options.db;
  const drop = async () => {
    if (owned) await db.drop();
  };
  let child: Child;
  try {
    child = await startChild(
      `tai42${options.label ? ` ${options.label}` : ""} (${kind}${options.stubRunWrites ? ", run writes stubbed" : ""}${options.redis ? ", Redis" : ""})`,
      "servers/tai42.ts",
      {
        databaseUrl: db.url,
        deltas: options.deltas,
        stubRunWrites: options.stubRunWrites,
        redisUrl: options.redis?.url,
        redisPrefix: options.redis?.prefix,
        keyName: options.label ? `bench-${options.label}` : undefined,
        secret: options.secret,
        paced: options.paced,
      },
      { nodeArgs: options.nodeArgs, env: options.env },
    );
  } catch (e) {
    await drop();
    throw e;
  }
  const key = await child.call<string>("key");
  return {
    ...child,
    db,
    key,
    async stop() {
      await child.stop();
      await drop();
    },
  };
}
