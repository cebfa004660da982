import type { Issue } from "../errors.ts";
import { templateValue } from "./tools-agent/prompt.ts";

const PLACEHOLDER = /\{\{\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\}\}/y;

/**
 * Renders a JSON text template with `{{name}}` placeholders (dotted paths into `vars`),
 * so that no value can change the document's structure: a placeholder inside a JSON
 * string becomes the value's text, JSON-escaped; anywhere else it becomes the value as
 * JSON. (A value `a", "enum": ["x"]` stays inside its string.) A placeholder without a
 * value is an issue at `path`.
 */
export function renderJsonTemplate(
  template: string,
  vars: Record<string, unknown>,
  path: string,
): { text: string; issues: Issue[] } {
  const issues: Issue[] = [];
  let out = "";
  let inString = false;
  for (let i = 0; i < template.length;) {
    const ch = template[i];
    if (inString && ch === "\\") {
      out += template.slice(i, i + 2);
      i += 2;
      continue;
    }
    PLACEHOLDER.lastIndex = i;
    const m = ch === "{" ? PLACEHOLDER.exec(template) : null;
    if (m) {
      const value = templateValue(vars, m[1]);
      if (value === undefined) {
        issues.push({ path, message: `the placeholder {{${m[1]}}} has no value (pass it in variables)` });
        out += m[0];
      } else if (inString)
        out += JSON.stringify(typeof value === "string" ? value : JSON.stringify(value)).slice(1, -1);
      else out += JSON.stringify(value);
      i += m[0].length;
      continue;
    }
    if (ch === '"') inString = !inString;
    out += ch;
    i += 1;
  }
  return { text: out, issues };
}
