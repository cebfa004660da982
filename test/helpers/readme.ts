import { readFileSync } from "node:fs";

/** The README's fenced code block whose first line starts with `firstLine` (its text, fences excluded). */
export function readmeBlock(firstLine: string): string {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  for (const m of readme.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)) if (m[1].startsWith(firstLine)) return m[1];
  throw new Error(`README.md has no code block starting with "${firstLine}"`);
}
