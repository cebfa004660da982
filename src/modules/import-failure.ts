import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** What an import that failed on a missing module could not find, and from where. */
interface Missing {
  /** The specifier as written, or the absolute path Node resolved a relative one to. */
  specifier: string;
  /** The file whose import failed (the module itself or one it imports), when Node says. */
  importer?: string;
}

/**
 * Reads Node's "not found" errors, in both of its forms: ESM (`Cannot find package 'x'
 * imported from /path`, `Cannot find module '/abs' imported from /path`) and CommonJS
 * (`Cannot find module 'x'` followed by a `Require stack`). Anything else is null.
 */
function missingOf(error: NodeJS.ErrnoException): Missing | null {
  if (error.code !== "ERR_MODULE_NOT_FOUND" && error.code !== "MODULE_NOT_FOUND") return null;
  const found = /Cannot find (?:package|module) '([^']+)'(?: imported from (.+))?/.exec(error.message ?? "");
  if (!found) return null;
  const importer = found[2] ?? /Require stack:\n- (.+)/.exec(error.message)?.[1];
  return { specifier: found[1], importer: importer?.trim() };
}

/** The package a bare specifier names: `pkg` of `pkg/sub`, `@scope/pkg` of `@scope/pkg/sub`. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith(".") || specifier.startsWith("/") || /^[a-z]+:/i.test(specifier)) return null;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

const shown = (path: string, cwd: string) => {
  const file = path.startsWith("file:") ? fileURLToPath(path) : path;
  const rel = isAbsolute(file) ? relative(cwd, file) : file;
  return rel.split("\\").join("/") || file;
};

/**
 * Why importing `module` failed, for a person: a missing `tai42` package says to install
 * it where the module lives; another missing package or file is named with the file that
 * imports it. Null when the error is not a missing module (the caller reports it as is).
 */
export function describeImportFailure(error: unknown, module: string, cwd: string): string | null {
  const missing = missingOf(error as NodeJS.ErrnoException);
  if (!missing) return null;
  const from = missing.importer ? shown(missing.importer, cwd) : module;
  const pkg = packageOf(missing.specifier);
  if (pkg === "tai42")
    return `cannot import tai42 from ${from}: install it with npm i tai42 (or a packed tai42-x.y.z.tgz) in the project that holds ${from}, or npm link tai42 to use a checkout`;
  if (pkg)
    return `cannot import ${missing.specifier} from ${from}: the package ${pkg} is not installed there (npm i ${pkg})`;
  return `cannot import ${shown(missing.specifier, cwd)} from ${from}: file not found`;
}
