import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { App } from "../app.ts";
import { DefinitionError } from "../definition-error.ts";
import { describeImportFailure } from "./import-failure.ts";

/**
 * A module named in TAI_MODULES (or a manifest) that failed to load: a
 * {@link DefinitionError} of rule `module.load` whose subject is the module.
 */
export function moduleLoadError(module: string, reason: string): DefinitionError {
  return new DefinitionError("module.load", `failed to load module "${module}": ${reason}`, {
    subject: module,
    issues: [{ path: "", message: reason }],
  });
}

/**
 * Whether a module reference is a package specifier (e.g. "tai42/contrib") rather than a
 * file: a file path ends in .ts/.js (relative to the working directory, "./" optional).
 */
export function isPackageSpecifier(ref: string): boolean {
  return !/\.(ts|js|mjs|mts|cjs|cts)$/.test(ref) && !ref.startsWith(".") && !ref.startsWith("/");
}

/** Whether this code runs compiled (dist/*.js) rather than from its TypeScript sources. */
const compiled = import.meta.url.endsWith(".js");
let typeScript: Promise<void> | undefined;

/**
 * Makes `.ts` modules importable: compiled tai42 registers tsx the first time one is
 * loaded, and only then (Node's own type stripping rejects constructor parameter
 * properties and other TypeScript-only syntax). Running from the sources, whatever runs
 * them (tsx, vitest) already does.
 */
export function supportTypeScript(url: string): Promise<void> {
  if (!compiled || !/\.[mc]?ts$/.test(url)) return Promise.resolve();
  typeScript ??= import("tsx/esm/api").then(({ register }) => void register());
  return typeScript;
}

/** The import URL of a module reference: a path relative to `cwd`, or a package specifier. */
export function moduleUrl(ref: string, cwd = process.cwd()): string {
  return isPackageSpecifier(ref) ? import.meta.resolve(ref) : pathToFileURL(resolve(cwd, ref)).href;
}

/**
 * Imports `.ts`/`.js` modules (paths relative to `cwd`, or package specifiers such as
 * "tai42/contrib"); each registers on the shared `app` at import time. Registrations
 * are attributed to the module being loaded. A module already imported is not re-run.
 */
export async function loadModules(app: App, paths: string[], cwd = process.cwd()): Promise<void> {
  for (const path of paths) {
    if ((path.startsWith(".") || path.startsWith("/")) && !/\.(ts|js|mjs|mts|cjs|cts)$/.test(path))
      throw moduleLoadError(path, "only .ts and .js modules can be loaded");
    let url: string;
    try {
      url = moduleUrl(path, cwd);
    } catch {
      throw moduleLoadError(path, "no such package or export");
    }
    if (url.startsWith("file:") && !existsSync(fileURLToPath(url))) throw moduleLoadError(path, "file not found");
    await supportTypeScript(url);
    app.currentModule = path;
    try {
      await import(url);
    } catch (e) {
      const err = e as Error;
      throw moduleLoadError(path, describeImportFailure(e, path, cwd) ?? `${err.name ?? "Error"}: ${err.message}`);
    } finally {
      app.currentModule = "inline";
    }
  }
}
