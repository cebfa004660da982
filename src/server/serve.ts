import { loadConfig, type Config } from "../config.ts";
import { migrate } from "../db/migrate.ts";
import { createRuntime, type Runtime } from "../runtime.ts";
import { buildApp, type TaiServer } from "./build-app.ts";

/** How long a stopping server waits, once its runs drained, for the requests in flight to be answered. */
const ANSWER_GRACE_MS = 2000;

/** A started server: what `tai serve` and the end-to-end tests run. */
export interface Served {
  url: string;
  runtime: Runtime;
  app: TaiServer;
  /** The admin key created on first start, or null; print it once. */
  firstAdminKey: string | null;
  /**
   * Graceful stop: readiness 503, refuse new runs, drain or cancel runs in flight, close the listener, flush, close.
   */
  stop(): Promise<void>;
}

/** Migrates the database, builds the runtime and the server, and listens. */
export async function serve(config: Config = loadConfig()): Promise<Served> {
  await migrate(config.databaseUrl);
  const runtime = await createRuntime({ config });
  const firstAdminKey = await runtime.keys.bootstrap(config.adminKey);
  const app = buildApp(runtime);
  let url: string;
  try {
    url = await app.start(config.port, config.host);
  } catch (e) {
    await app.stop();
    await runtime.close();
    throw listenError(e, config.port, config.host);
  }
  let stopping: Promise<void> | null = null;
  return {
    url,
    runtime,
    app,
    firstAdminKey,
    stop() {
      stopping ??= (async () => {
        // Readiness turns 503 first, and for TAI_UNREADY_SECONDS (when something polled
        // /ready lately: src/server/ready.ts) the instance still serves and accepts new runs
        // while the load balancer's health check moves traffic away; responses meanwhile say
        // `Connection: close`, so pooled connections move off too. Only then are new runs
        // refused UNAVAILABLE and those in flight drained (within TAI_SHUTDOWN_GRACE_SECONDS).
        // Then, once the requests in flight are answered (a run the drain finished, handed back or cancelled is
        // answered to the caller still waiting on it; at most ANSWER_GRACE_MS), the listener closes and every
        // remaining socket (subscriptions, WebSockets) is closed.
        app.readiness.drain();
        const wait = app.readiness.unreadyWaitMs(config.unreadySeconds);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await runtime.drain();
        await app.answered(ANSWER_GRACE_MS);
        app.server.close();
        app.server.closeIdleConnections?.();
        await runtime.close();
        await app.stop();
      })();
      return stopping;
    },
  };
}

/** A failed listen, said in terms of the setting that fixes it (PORT or HOST). */
export function listenError(e: unknown, port: number, host: string): Error {
  const code = (e as NodeJS.ErrnoException).code;
  const where = `port ${port} on ${host}`;
  if (code === "EADDRINUSE") return new Error(`${where} is in use: set PORT to another port`, { cause: e });
  if (code === "EACCES")
    return new Error(`${where} needs privileges this process lacks: set PORT to a port above 1023`, { cause: e });
  if (code === "EADDRNOTAVAIL")
    return new Error(`${host} is not an address of this machine: set HOST to one (127.0.0.1 or 0.0.0.0)`, { cause: e });
  return e instanceof Error ? e : new Error(String(e));
}
