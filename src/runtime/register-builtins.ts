import { app as sharedApp } from "../app.ts";
import { registerDemoTools } from "../demo/demo-tools.ts";
import { Surface } from "../registry/surface.ts";
import { SpanStore } from "../extensions/builtin/spans.ts";
import { registerMonitor } from "../extensions/builtin/monitor.ts";
import { registerAskExternal } from "../extensions/builtin/ask-external.ts";
import { registerWorkerBackend } from "../extensions/builtin/worker-backend.ts";
import type { Stores } from "./open-stores.ts";

/** What {@link registerBuiltins} builds: the span store, every handle in order and the surface over them. */
export type Builtins = ReturnType<typeof registerBuiltins>;

/** Registers the built-in extensions (and the demo tools) and builds the surface over every handle. */
export function registerBuiltins({ config, app, builtins, db, bus, secrets }: Stores) {
  const spans = new SpanStore(db, bus, secrets);
  builtins.currentModule = "builtin";
  registerMonitor(builtins, spans);
  registerAskExternal(builtins);
  registerWorkerBackend(builtins);
  builtins.currentModule = "inline";
  if (config.demo) registerDemoTools(builtins, db);
  const apps = [...new Set([builtins, sharedApp, app])];
  const surface = new Surface(apps);
  return { spans, apps, surface };
}
