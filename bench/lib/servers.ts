import { startChild, type Child } from "./child.ts";
import type { ScratchDatabases, ScratchDb } from "./databases.ts";

/** A tai42 server child with its scratch database and API key. */
export interface Tai42Child extends Child {
  db: ScratchDb;
  key: string;
}

export const startRaw = () => startChild("raw node:http", "servers/raw-http.ts", {});
export const startYoga = () => startChild("bare yoga", "servers/bare-yoga.ts", {});
export const startMcp = (mode: "stateless" | "session") => startChild(`MCP SDK (${mode})`, "servers/mcp-sdk.ts", { mode });

/** Starts tai42 on a fresh scratch database (dropped when the child stops). */
export async function startTai42(dbs: ScratchDatabases, kind: "sqlite" | "postgres", options: { deltas?: number; nodeArgs?: string[]; stubRunWrites?: boolean } = {}): Promise<Tai42Child> {
  const db = await dbs.create(kind);
  let child: Child;
  try {
    child = await startChild(`tai42 (${kind}${options.stubRunWrites ? ", run writes stubbed" : ""})`, "servers/tai42.ts", { databaseUrl: db.url, deltas: options.deltas, stubRunWrites: options.stubRunWrites }, { nodeArgs: options.nodeArgs });
  } catch (e) {
    await db.drop();
    throw e;
  }
  const key = await child.call<string>("key");
  return {
    ...child,
    db,
    key,
    async stop() {
      await child.stop();
      await db.drop();
    },
  };
}
