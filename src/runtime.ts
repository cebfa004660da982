import { randomUUID } from "node:crypto";
import { App, app as sharedApp } from "./app.ts";
import { KeyStore } from "./auth/keys.ts";
import type { Config } from "./config.ts";
import { openDb, type Db, type DbProvider } from "./db/client.ts";
import { registerDemoTools } from "./demo/demo-tools.ts";
import { Dispatcher } from "./dispatch/run-tool.ts";
import { RunStore } from "./dispatch/run-store.ts";
import { Bus } from "./events/bus.ts";
import { createLogger, type Logger } from "./log.ts";
import { loadModules } from "./modules/load-modules.ts";
import { Surface } from "./registry/surface.ts";
import { StoredSurface } from "./registry/stored-surface.ts";
import { PresetService } from "./presets/preset-service.ts";
import { ManifestService } from "./manifests/manifest-service.ts";
import { InteractionStore } from "./interactions/interaction-store.ts";
import { InteractionService } from "./interactions/interaction-service.ts";

/** Options of {@link createRuntime}. */
export interface RuntimeOptions {
  config: Config;
  /** The handle user modules register on. @default the shared `app` */
  app?: App;
  /** Import `config.modules` (TAI_MODULES). @default true */
  loadModules?: boolean;
  log?: Logger;
  /** Milliseconds between interaction-expiry sweeps. @default 1000 */
  sweepMs?: number;
  /** Seconds between instance heartbeats. @default 10 */
  heartbeatSeconds?: number;
}

/**
 * The one object every door holds: database, registry surface, bus, keys and the
 * dispatch chokepoint. Domain code takes what it needs from here; nothing in it knows
 * about GraphQL.
 */
export interface Runtime {
  config: Config;
  db: Db;
  provider: DbProvider;
  app: App;
  /** Runtime-owned registrations (demo tools, built-ins). */
  builtins: App;
  surface: Surface;
  bus: Bus;
  keys: KeyStore;
  runs: RunStore;
  presets: PresetService;
  manifests: ManifestService;
  /** Stored presets and the active manifest, applied to the surface. */
  stored: StoredSurface;
  dispatcher: Dispatcher;
  instanceId: string;
  log: Logger;
  /** Answers and expiry of parked runs' interactions. */
  interactions: InteractionService;
  /** Base URL this server is reachable at (callback URLs); set when the server listens. */
  publicUrl: string;
  /** Runs failed as "interrupted by restart" at start. */
  recovered: string[];
  /** Stops accepting runs, drains or cancels those in flight, closes connections. */
  close(): Promise<void>;
}

/** Builds a runtime over an already-migrated database (see `db/migrate.ts`). */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config } = options;
  const log = options.log ?? createLogger({ service: "tai42" });
  const app = options.app ?? sharedApp;
  if (options.loadModules ?? true) await loadModules(app, config.modules);
  const { db, provider } = await openDb(config.databaseUrl);
  const bus = new Bus({ redisUrl: config.redisUrl, onError: (e) => log.warn("redis error; events degrade until it returns", { error: e.message }) });
  const builtins = new App();
  if (config.demo) registerDemoTools(builtins, db);
  const surface = new Surface([builtins, app]);
  const runs = new RunStore(db);
  const instanceId = randomUUID();
  const heartbeatMs = (options.heartbeatSeconds ?? 10) * 1000;

  await db.instance.create({ data: { id: instanceId } });
  // Instances that missed three heartbeats are gone; their RUNNING runs were interrupted.
  const cutoff = new Date(Date.now() - heartbeatMs * 3);
  await db.instance.deleteMany({ where: { heartbeatAt: { lt: cutoff } } });
  const live = (await db.instance.findMany({ select: { id: true } })).map((i) => i.id);
  const recovered = await runs.failInterrupted(live.filter((id) => id !== instanceId).concat(instanceId));
  if (recovered.length) log.warn("runs interrupted by a restart were marked FAILED", { count: recovered.length });
  const heartbeat = setInterval(() => {
    db.instance.upsert({ where: { id: instanceId }, create: { id: instanceId }, update: { heartbeatAt: new Date() } }).catch((e: Error) => log.warn("heartbeat failed", { error: e.message }));
  }, heartbeatMs);
  heartbeat.unref();

  const interactionStore = new InteractionStore(db, (token) => `${runtime.publicUrl}/callbacks/${token}`);
  const dispatcher = new Dispatcher({ surface, runs, bus, log, instanceId, interactions: interactionStore });
  const interactions = new InteractionService(interactionStore, runs, dispatcher, log);
  const sweep = setInterval(() => {
    interactions.expireDue().catch((e: Error) => log.warn("expiring interactions failed", { error: e.message }));
  }, options.sweepMs ?? 1000);
  sweep.unref();
  const unwatch = [app.onChange(() => surface.rebuild()), builtins.onChange(() => surface.rebuild())];
  surface.onChange(() => bus.publish("toolsChanged", { at: new Date().toISOString() }));
  const keys = new KeyStore(db, bus);
  const stored = new StoredSurface(db, surface, bus, instanceId, log);
  await stored.load();
  const changed = () => stored.changed();
  const presets = new PresetService(db, surface, changed);
  const manifests = new ManifestService(
    db,
    async () => ({ surface, extensions: new Set<string>(), presets: new Set((await db.preset.findMany({ select: { name: true } })).map((p) => p.name)) }),
    changed,
  );

  let closed = false;
  const runtime: Runtime = {
    publicUrl: config.publicUrl ?? `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`,
    interactions,
    config,
    db,
    provider,
    app,
    builtins,
    surface,
    bus,
    keys,
    runs,
    presets,
    manifests,
    stored,
    dispatcher,
    instanceId,
    log,
    recovered,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      clearInterval(sweep);
      unwatch.forEach((u) => u());
      stored.close();
      await dispatcher.drain(config.shutdownGraceSeconds * 1000);
      await db.instance.delete({ where: { id: instanceId } }).catch(() => {});
      await bus.close();
      await db.$disconnect();
    },
  };
  return runtime;
}
