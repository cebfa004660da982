import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as TS from "typescript";

/**
 * The compiler options of a project without a tsconfig.json: strict, for modules that
 * Node 22+ runs through tsx (as `TAI_MODULES` are). Module "preserve" resolves imports as
 * tsx does (with or without a `.ts` extension, `tai42` through its package exports, to
 * its declarations); the library checks of dependencies are skipped.
 */
const DEFAULT_OPTIONS = {
  target: "ES2024",
  lib: ["ES2024", "DOM"],
  module: "Preserve",
  moduleResolution: "Bundler",
  strict: true,
  noEmit: true,
  allowImportingTsExtensions: true,
  isolatedModules: true,
  esModuleInterop: true,
  resolveJsonModule: true,
  skipLibCheck: true,
};

/** What `tai check` found: one line per diagnostic, `file:line:col - error TSnnnn: message`. */
export interface CheckReport {
  /** The checked files, relative to the working directory. */
  files: string[];
  /** Where the compiler options came from: the project's tsconfig.json, or tai42's defaults. */
  options: string;
  /** The TypeScript version that checked. */
  typescript: string;
  lines: string[];
  errors: number;
}

/** The project's own TypeScript (the version its editor uses), else the one tai42 depends on. */
async function loadTypeScript(cwd: string): Promise<typeof TS> {
  let path: string | undefined;
  try {
    path = createRequire(join(cwd, "package.json")).resolve("typescript");
  } catch {
    // Not installed in the project.
  }
  const mod = (await import(path ? pathToFileURL(path).href : "typescript")) as { default?: typeof TS } & typeof TS;
  return mod.default ?? mod;
}

/** The options of `cwd/tsconfig.json` (never emitting), or the defaults; with the problems reading it. */
function compilerOptions(ts: typeof TS, cwd: string): { options: TS.CompilerOptions; from: string; problems: readonly TS.Diagnostic[] } {
  const file = join(cwd, "tsconfig.json");
  if (!existsSync(file)) {
    const { options, errors } = ts.convertCompilerOptionsFromJson(DEFAULT_OPTIONS, cwd);
    return { options, from: "tai42's defaults (no tsconfig.json here)", problems: errors };
  }
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error) return { options: {}, from: "tsconfig.json", problems: [read.error] };
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, cwd, undefined, file);
  // "No inputs were found" only concerns the config's own include list, which is not used here.
  const problems = parsed.errors.filter((d) => d.code !== 18003);
  return { options: { ...parsed.options, noEmit: true }, from: "tsconfig.json", problems };
}

function formatDiagnostic(ts: typeof TS, d: TS.Diagnostic, cwd: string): string {
  const category = ts.DiagnosticCategory[d.category].toLowerCase();
  const text = ts.flattenDiagnosticMessageText(d.messageText, "\n  ");
  if (!d.file || d.start === undefined) return `${category} TS${d.code}: ${text}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  const file = relative(cwd, d.file.fileName).split("\\").join("/");
  return `${file}:${line + 1}:${character + 1} - ${category} TS${d.code}: ${text}`;
}

/** Type-checks `files` (paths relative to `cwd`) with the project's compiler options, emitting nothing. */
export async function typeCheck(files: string[], cwd = process.cwd()): Promise<CheckReport> {
  const ts = await loadTypeScript(cwd);
  const { options, from, problems } = compilerOptions(ts, cwd);
  const program = ts.createProgram({ rootNames: files.map((f) => resolve(cwd, f)), options });
  const diagnostics = [...problems, ...ts.getPreEmitDiagnostics(program)];
  return {
    files,
    options: from,
    typescript: ts.version,
    lines: diagnostics.map((d) => formatDiagnostic(ts, d, cwd)),
    errors: diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length,
  };
}
