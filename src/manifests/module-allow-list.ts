import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { DefinitionError } from "../definition-error.ts";
import { isPackageSpecifier } from "../modules/load-modules.ts";

/** The package every manifest may name: the contributed extensions. */
export const CONTRIB = "tai42/contrib";

/** What a manifest's `extensionsModules` may name (docs/security-model.md §6). */
export interface ModuleAllowList {
  /** The TAI_MODULES entries. */
  modules: string[];
  /** TAI_EXTENSIONS_DIR: any .ts/.js file inside it may be named. */
  extensionsDir?: string;
  /** What relative paths are resolved against. @default process.cwd() */
  cwd?: string;
}

const MODULE_FILE = /\.(ts|js|mjs|mts|cjs|cts)$/;

/** The path with symlinks resolved where it exists, so a link cannot lead out of the folder. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Why a manifest may not name module `ref`, or null when it may. Checked before anything
 * is imported: `tai42/contrib`, a TAI_MODULES entry (as written, or the same file), or a
 * module file inside TAI_EXTENSIONS_DIR. Nothing else: no other package or built-in
 * (`child_process`), no file elsewhere.
 */
export function moduleRefusal(ref: string, allow: ModuleAllowList): string | null {
  if (ref === CONTRIB || allow.modules.includes(ref)) return null;
  const cwd = allow.cwd ?? process.cwd();
  if (!isPackageSpecifier(ref)) {
    const file = resolve(cwd, ref);
    if (allow.modules.some((m) => !isPackageSpecifier(m) && resolve(cwd, m) === file)) return null;
    if (allow.extensionsDir && MODULE_FILE.test(ref)) {
      const inside = relative(real(resolve(cwd, allow.extensionsDir)), real(file));
      if (inside && !inside.startsWith("..") && !isAbsolute(inside)) return null;
    }
  }
  return `module "${ref}" is not allowed: a manifest may name "${CONTRIB}", a TAI_MODULES entry, or a .ts/.js file inside TAI_EXTENSIONS_DIR${allow.extensionsDir ? "" : " (not set)"}`;
}

/**
 * Throws when any of `refs` is not allowed; for loads of stored manifests (written before
 * the rule). The refusal is a `DefinitionError` of rule `module.not-allowed`, one issue per
 * refused module at its index in `refs`.
 */
export function assertModulesAllowed(refs: string[], allow: ModuleAllowList): void {
  const issues = refs.flatMap((r, i) => {
    const message = moduleRefusal(r, allow);
    return message === null ? [] : [{ path: `/${i}`, message }];
  });
  if (issues.length)
    throw new DefinitionError("module.not-allowed", issues.map((i) => i.message).join("; "), { issues });
}
