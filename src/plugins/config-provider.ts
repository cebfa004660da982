import { readFileSync } from "node:fs";
import { extname } from "node:path";

/**
 * Where `!ENV NAME` values come from (docs/plugins.md §2). The process environment is the
 * default; a plugin adds another source. Contract: `lookup` is synchronous, returns the
 * value of `name` or undefined when this source does not know it, and throws only with a
 * message that names the source, never a value.
 */
export interface ConfigProvider {
  /** Shown in errors and the docs, e.g. "env" or "file:/etc/tai42/secrets.json". */
  name: string;
  lookup(name: string): string | undefined;
}

/** The default config provider: the process environment (an empty value counts as unset). */
export function envConfigProvider(env: NodeJS.ProcessEnv = process.env): ConfigProvider {
  return { name: "env", lookup: (name) => (env[name] === "" ? undefined : env[name]) };
}

/** A config provider's file could not be read or parsed; the message never holds file content. */
export class ConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigFileError";
  }
}

/** Options of {@link fileConfigProvider}. */
export interface FileConfigOptions {
  /**
   * "json": one object of string values; "dotenv": `NAME=value` lines. @default by extension: .json → json, else dotenv
   */
  format?: "json" | "dotenv";
}

/**
 * A config provider reading a JSON object or a dotenv file. The file is read at every
 * lookup, so a rotated value is used from the next resolve on. A file that is missing or
 * malformed fails the resolve with a message naming the file (and the line), never its content.
 */
export function fileConfigProvider(path: string, options: FileConfigOptions = {}): ConfigProvider {
  const format = options.format ?? (extname(path).toLowerCase() === ".json" ? "json" : "dotenv");
  const name = `file:${path}`;
  return {
    name,
    lookup(variable) {
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch (e) {
        throw new ConfigFileError(
          `config provider ${name}: the file cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"})`,
        );
      }
      const values = format === "json" ? parseJson(text, name) : parseDotenv(text, name);
      const v = Object.hasOwn(values, variable) ? values[variable] : undefined;
      return v === "" ? undefined : v;
    },
  };
}

function parseJson(text: string, name: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the text around the error: never repeat it.
    throw new ConfigFileError(`config provider ${name}: the file is not valid JSON`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new ConfigFileError(`config provider ${name}: the file must hold one JSON object of NAME: "value" pairs`);
  const bad = Object.entries(parsed).find(([, v]) => typeof v !== "string");
  if (bad) throw new ConfigFileError(`config provider ${name}: the value of ${bad[0]} must be a string`);
  return parsed as Record<string, string>;
}

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

function parseDotenv(text: string, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim() || line.trimStart().startsWith("#")) return;
    const m = LINE.exec(line);
    if (!m) throw new ConfigFileError(`config provider ${name}: line ${i + 1} is not NAME=value`);
    let value = m[2];
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, "");
    if (quote === '"') value = value.replace(/\\n/g, "\n");
    out[m[1]] = value;
  });
  return out;
}

/** The value of `name` from the first provider that knows it, else undefined. */
export function lookupConfig(providers: readonly ConfigProvider[], name: string): string | undefined {
  for (const p of providers) {
    const v = p.lookup(name);
    if (v !== undefined) return v;
  }
  return undefined;
}
