import type { App } from "../app.ts";
import type { Db } from "../db/client.ts";
import { registerEverydayTools } from "./everyday-tools.ts";
import { registerSigningTool } from "./signing-tool.ts";
import { registerStoreTools } from "./store-tools.ts";
import { registerTimingTools } from "./timing-tools.ts";

/**
 * The demo tools the embedded default serves: a handful of useful tools across all four
 * tiers. They are ordinary tools, registered on a runtime-owned handle so that each
 * runtime's key-value store uses its own database.
 */
export function registerDemoTools(app: App, db: Db, env: NodeJS.ProcessEnv = process.env): void {
  app.currentModule = "demo";
  registerEverydayTools(app);
  registerTimingTools(app);
  registerStoreTools(app, db);
  registerSigningTool(app, env);
  app.currentModule = "inline";
}
