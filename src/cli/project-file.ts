import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { DefinitionError } from "../definition-error.ts";
import { supportTypeScript } from "../modules/load-modules.ts";
import { parseProjectConfig, PROJECT_CONFIG_RULE, projectEnv, type ProjectConfig } from "../project-config.ts";

/** The names of a project config file, in the order one folder's are preferred. */
export const CONFIG_FILE_NAMES = [
  "tai42.config.ts",
  "tai42.config.mts",
  "tai42.config.js",
  "tai42.config.mjs",
  "tai42.config.json",
  "tai42.config.yaml",
  "tai42.config.yml",
] as const;

/** The nearest project config file: in `cwd`, else in the folders above it up to the filesystem root. */
export function findProjectConfig(cwd = process.cwd()): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const found = CONFIG_FILE_NAMES.map((name) => join(dir, name)).find((file) => existsSync(file));
    if (found) return found;
    if (dirname(dir) === dir) return undefined;
  }
}

const unreadable = (file: string, reason: string) =>
  new DefinitionError(PROJECT_CONFIG_RULE, `${file}: ${reason}`, {
    subject: file,
    issues: [{ path: "", message: reason }],
  });

/**
 * Why a file did not parse, without its text: JSON's and YAML's messages quote the lines around the fault, and a
 * malformed file may hold what should not be printed. Only the position is kept.
 */
function parseFailure(file: string, e: unknown): string {
  const err = e as Error & { linePos?: { line: number; col: number }[]; code?: string };
  if (/\.json$/.test(file)) {
    const at = /\(line \d+ column \d+\)|at position \d+/.exec(err.message ?? "");
    return `not valid JSON${at ? ` ${at[0].replace(/^\((.*)\)$/, "at $1")}` : ""}`;
  }
  if (/\.ya?ml$/.test(file)) {
    const at = err.linePos?.[0];
    return `not valid YAML (${err.code ?? "parse error"}${at ? ` at line ${at.line} column ${at.col}` : ""})`;
  }
  return err.message ?? String(e);
}

/** Reads and validates one config file (TypeScript or JavaScript: its default export; JSON; YAML). */
export async function readProjectConfig(file: string): Promise<ProjectConfig> {
  let value: unknown;
  try {
    if (/\.json$/.test(file)) value = JSON.parse(readFileSync(file, "utf8"));
    else if (/\.ya?ml$/.test(file)) value = (await import("yaml")).parse(readFileSync(file, "utf8"));
    else {
      // A fresh URL each read: `tai dev` re-reads a changed file in the same process.
      const url = `${pathToFileURL(file).href}?t=${Date.now()}`;
      await supportTypeScript(pathToFileURL(file).href);
      value = ((await import(url)) as { default?: unknown }).default;
    }
  } catch (e) {
    throw unreadable(file, `cannot be read: ${parseFailure(file, e)}`);
  }
  return parseProjectConfig(value ?? {}, file);
}

let used: string | undefined;

/** The config file the settings of this process were read from, if any (`tai serve` prints it). */
export const usedProjectConfig = (): string | undefined => used;

/**
 * Applies the nearest project config file (or the one TAI_CONFIG names) to `env` as defaults: a variable already set
 * wins over the file. Returns the file, or undefined when there is none (the tai42 checkout: the demo tools stay on).
 */
export async function applyProjectConfig(env = process.env, cwd = process.cwd()): Promise<string | undefined> {
  const named = env.TAI_CONFIG;
  const file = named ? resolve(cwd, named) : findProjectConfig(cwd);
  if (!file) return undefined;
  if (!existsSync(file)) throw unreadable(file, "not found (TAI_CONFIG)");
  const settings = projectEnv(await readProjectConfig(file), dirname(file), env);
  for (const [name, value] of Object.entries(settings))
    if (env[name] === undefined || env[name] === "") env[name] = value;
  used = file;
  return file;
}
