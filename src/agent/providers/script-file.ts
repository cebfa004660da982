import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseDocument } from "yaml";
import { scriptError, scriptFileIssues, type ScriptFile } from "./script.ts";

/**
 * Reads a script file: `.json` is JSON, anything else YAML (a superset of JSON). Throws a
 * `DefinitionError` of rule `provider.script` whose message starts with `script file
 * <path>` and names what was wrong: the file cannot be read, does not parse (line and
 * column), or does not fit the shape (the JSON pointer of each problem).
 */
export function readScriptFile(file: string | URL): ScriptFile {
  const path = file instanceof URL ? fileURLToPath(file) : file;
  const where = `script file ${path}`;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw scriptError(where, [
      { path: "", message: `cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"})` },
    ]);
  }
  const content = path.endsWith(".json") ? parseJson(text, where) : parseYaml(text, where);
  const issues = scriptFileIssues(content);
  if (issues.length) throw scriptError(where, issues);
  return content as ScriptFile;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw scriptError(where, [{ path: "", message: `is not valid JSON (${(e as Error).message})` }]);
  }
}

function parseYaml(text: string, where: string): unknown {
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    throw scriptError(where, [
      { path: "", message: `is not valid YAML${at ? ` at line ${at.line}, column ${at.col}` : ""} (${error.code})` },
    ]);
  }
  return doc.toJS() as unknown;
}
