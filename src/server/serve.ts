import { loadConfig, type Config } from "../config.ts";
import { migrate } from "../db/migrate.ts";
import { createRuntime, type Runtime } from "../runtime.ts";
import { buildApp, type TaiServer } from "./build-app.ts";

/** A started server: what `tai serve` and the end-to-end tests run. */
export interface Served {
  url: string;
  runtime: Runtime;
  app: TaiServer;
  /** The admin key created on first start, or null; print it once. */
  firstAdminKey: string | null;
  /** Graceful stop: readiness 503, refuse new runs, drain or cancel runs in flight, close the listener, flush, close. */
  stop(): Promise<void>;
}

/** Migrates the database, builds the runtime and the server, and listens. */
export async function serve(config: Config = loadConfig()): Promise<Served> {
  await migrate(config.databaseUrl);
  const runtime = await createRuntime({ config });
  const firstAdminKey = await runtime.keys.bootstrap(config.adminKey);
  const app = buildApp(runtime);
  const url = await app.start(config.port, config.host);
  let stopping: Promise<void> | null = null;
  return {
    url,
    runtime,
    app,
    firstAdminKey,
    stop() {
      stopping ??= (async () => {
        // Readiness turns 503 first, while the listener stays open: a load balancer stops
        // routing here (for at least TAI_UNREADY_SECONDS) while the runs in flight drain,
        // and new runs meanwhile are refused UNAVAILABLE. Then the listener closes,
        // keeping the connections with a request in flight (a run the drain finished or
        // cancelled is answered to the caller still waiting on it), and every remaining
        // socket (subscriptions, WebSockets) is closed.
        app.readiness.drain();
        await Promise.all([runtime.drain(), new Promise((r) => setTimeout(r, config.unreadySeconds * 1000))]);
        app.server.close();
        app.server.closeIdleConnections?.();
        await runtime.close();
        await app.stop();
      })();
      return stopping;
    },
  };
}
