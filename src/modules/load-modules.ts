import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { App } from "../app.ts";

/** A module named in TAI_MODULES (or a manifest) that failed to load. */
export class ModuleLoadError extends Error {
  constructor(
    readonly module: string,
    reason: string,
  ) {
    super(`failed to load module "${module}": ${reason}`);
    this.name = "ModuleLoadError";
  }
}

/**
 * Imports `.ts`/`.js` modules (paths relative to `cwd`); each registers on the shared
 * `app` at import time. Registrations are attributed to the module being loaded.
 */
export async function loadModules(app: App, paths: string[], cwd = process.cwd()): Promise<void> {
  for (const path of paths) {
    if (!/\.(ts|js|mjs|mts)$/.test(path)) throw new ModuleLoadError(path, "only .ts and .js modules can be loaded");
    const file = resolve(cwd, path);
    app.currentModule = path;
    try {
      await import(pathToFileURL(file).href);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const reason = err.code === "ERR_MODULE_NOT_FOUND" && err.message.includes(file) ? "file not found" : `${err.name ?? "Error"}: ${err.message}`;
      throw new ModuleLoadError(path, reason);
    } finally {
      app.currentModule = "inline";
    }
  }
}
