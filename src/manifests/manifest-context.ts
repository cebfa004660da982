import type { Db } from "../db/client.ts";
import type { Issue } from "../errors.ts";
import { assertModulesAllowed, moduleRefusal, type ModuleAllowList } from "./module-allow-list.ts";
import type { DocumentContext } from "./validate-document.ts";

/** What {@link manifestContext} reads. */
export interface ManifestContextDeps extends Pick<DocumentContext, "surface" | "extension" | "secrets"> {
  db: Db;
  /** The configured modules (TAI_MODULES): with the built-ins, their extensions need no listing. */
  modules: string[];
  allowList: ModuleAllowList;
  /** Imports modules onto the shared handle. */
  loadModules(modules: string[]): Promise<void>;
}

/**
 * Imports `modules` after checking them against the allow-list: manifests may import only allow-listed modules
 * (docs/security-model.md §6), also when a stored manifest written before the rule is loaded.
 */
export function allowedModules(deps: Pick<ManifestContextDeps, "allowList" | "loadModules">) {
  return async (modules: string[]): Promise<void> => {
    assertModulesAllowed(modules, deps.allowList);
    await deps.loadModules(modules);
  };
}

/** The context a manifest write validates its document in, read afresh at each write. */
export function manifestContext(deps: ManifestContextDeps): () => Promise<DocumentContext> {
  const { db, allowList } = deps;
  return async () => ({
    surface: deps.surface,
    extension: deps.extension,
    secrets: deps.secrets,
    presets: new Set((await db.preset.findMany({ select: { name: true } })).map((p) => p.name)),
    baseModules: new Set(["builtin", "inline", ...deps.modules]),
    moduleRefusal: (ref: string) => moduleRefusal(ref, allowList),
    load: async (modules: string[]) => {
      assertModulesAllowed(modules, allowList);
      const issues: Issue[] = [];
      for (const [i, m] of modules.entries()) {
        try {
          await deps.loadModules([m]);
        } catch (e) {
          issues.push({ path: `/${i}`, message: (e as Error).message });
        }
      }
      return issues;
    },
  });
}
