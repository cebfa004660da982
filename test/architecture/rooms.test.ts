import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The map of the house stays true: docs/architecture.md's table of rooms says, for every
 * folder of src/ (and the kernel and root files), which other rooms it imports; this test
 * reads the code's imports (type imports included, dynamic `import()` left out) and fails
 * when the two differ, naming the room and the edge. A new dependency between rooms is a
 * decision written in the map, never an accident.
 */

const root = resolve(import.meta.dirname, "../..");
const src = join(root, "src");

/** Top-level files the rest of the tree builds on; the other top-level files compose it. */
const KERNEL = new Set(["errors.ts", "definition-error.ts", "log.ts", "failure-log.ts", "config.ts"]);

function roomOf(file: string): string {
  const parts = relative(src, file).split(/[\\/]/);
  // runtime/ holds createRuntime's steps: it is part of the root that composes the house.
  if (parts.length > 1) return parts[0] === "runtime" ? "root" : `${parts[0]}/`;
  return KERNEL.has(parts[0]) ? "kernel" : "root";
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === "generated" ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(d.name) && !d.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Which rooms each room imports, from the code. */
function codeRooms(): Map<string, Set<string>> {
  const rooms = new Map<string, Set<string>>();
  for (const file of sourceFiles(src)) {
    const from = roomOf(file);
    if (!rooms.has(from)) rooms.set(from, new Set());
    const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
    for (const node of sf.statements) {
      if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node))) continue;
      const spec = node.moduleSpecifier;
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith(".")) continue;
      const target = resolve(dirname(file), spec.text);
      if (!existsSync(target)) continue;
      const to = roomOf(target);
      if (to !== from) rooms.get(from)!.add(to);
    }
  }
  return rooms;
}

/** Which rooms each room imports, from the map: rows `| \`room/\` | owns | \`a/\` \`b/\` |`. */
function mapRooms(): Map<string, Set<string>> {
  const doc = readFileSync(join(root, "docs/architecture.md"), "utf8");
  const section = doc.split(/^## /m).find((s) => s.startsWith("The rooms"));
  if (!section) throw new Error('docs/architecture.md has no "## The rooms" section');
  const rooms = new Map<string, Set<string>>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const name = /^`([^`]+)`$/.exec(cells[1] ?? "")?.[1];
    if (!name || cells.length < 5) continue;
    rooms.set(name, new Set([...cells[3].matchAll(/`([^`]+)`/g)].map((m) => m[1])));
  }
  return rooms;
}

describe("the map of the house (docs/architecture.md)", () => {
  const code = codeRooms();
  const map = mapRooms();

  it("should find the rooms in both (the scan is not vacuous)", () => {
    expect(code.size).toBeGreaterThan(20);
    expect(code.get("dispatch/")).toContain("registry/");
    expect(map.size).toBeGreaterThan(20);
  });

  it("should list every room of src/, and no room that is gone", () => {
    expect([...map.keys()].sort()).toEqual([...code.keys()].sort());
  });

  it("should name exactly the rooms each room imports", () => {
    const wrong: string[] = [];
    for (const [room, imports] of code) {
      const listed = map.get(room) ?? new Set<string>();
      for (const to of imports) if (!listed.has(to)) wrong.push(`${room} imports ${to}, which the map does not list`);
      for (const to of listed) if (!imports.has(to)) wrong.push(`${room} lists ${to}, which it no longer imports`);
    }
    expect(wrong).toEqual([]);
  });
});
