import { existsSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type * as TS from "typescript";
import { printable } from "./printable.ts";

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

/**
 * tai42's own TypeScript, the one its package depends on, resolved from where tai42 is
 * installed. Never one found in the checked folder: its `node_modules` may be anyone's,
 * and loading a `typescript` from there would run its code (README §"tai check").
 */
async function loadTypeScript(): Promise<typeof TS> {
  const mod = (await import("typescript")) as { default?: typeof TS } & typeof TS;
  return mod.default ?? mod;
}

/** The options of `cwd/tsconfig.json` (never emitting), or the defaults; with the problems reading it. */
function compilerOptions(
  ts: typeof TS,
  cwd: string,
): { options: TS.CompilerOptions; from: string; problems: readonly TS.Diagnostic[] } {
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

/** A diagnostic's message chain, one line per message, each indented by its depth, with control characters escaped. */
function messageText(m: string | TS.DiagnosticMessageChain, depth = 0): string {
  if (typeof m === "string") return printable(m);
  const own = `${depth ? `\n${"  ".repeat(depth + 1)}` : ""}${printable(m.messageText)}`;
  return own + (m.next ?? []).map((n) => messageText(n, depth + 1)).join("");
}

/**
 * One line per diagnostic (its chain indented below it); whatever echoes a file name or source text is made {@link
 * printable}.
 */
function formatDiagnostic(ts: typeof TS, d: TS.Diagnostic, cwd: string): string {
  const category = ts.DiagnosticCategory[d.category].toLowerCase();
  const text = messageText(d.messageText);
  if (!d.file || d.start === undefined) return `${category} TS${d.code}: ${text}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  const file = printable(relative(cwd, d.file.fileName).split("\\").join("/"));
  return `${file}:${line + 1}:${character + 1} - ${category} TS${d.code}: ${text}`;
}

/** Type-checks `files` (paths relative to `cwd`) with the project's compiler options, emitting nothing. */
export async function typeCheck(files: string[], cwd = process.cwd()): Promise<CheckReport> {
  const ts = await loadTypeScript();
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
