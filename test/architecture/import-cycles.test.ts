import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * No import cycle among src/ modules, type imports included (docs/architecture.md): a
 * module graph without cycles loads in one order, none of its modules can see another
 * half-initialised, and its rooms stack in layers, each naming only the rooms below it.
 *
 * The graph is the static, relative imports and re-exports of src/**\/*.ts(x), `import type`
 * and `export type` included: a type import is a dependency of the design even though
 * TypeScript erases it. Left out: dynamic `import()`, which loads after its importer has
 * finished, and packages, which cannot import src/ back.
 */

const root = resolve(import.meta.dirname, "../..");
const src = join(root, "src");
const rel = (file: string) => relative(root, file).split("\\").join("/");

// Cycles tolerated: none, and none may be added.
const ALLOWED_CYCLES: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === "generated" || d.name === "node_modules" ? [] : sourceFiles(path);
    return /\.(ts|mts|cts|tsx)$/.test(d.name) && !d.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The src/ modules a file imports (types included), by repository path. */
function importsOf(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const node of sf.statements) {
    if (
      !(ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) ||
      !node.moduleSpecifier ||
      !ts.isStringLiteral(node.moduleSpecifier)
    )
      continue;
    const spec = node.moduleSpecifier.text;
    if (!spec.startsWith(".")) continue;
    const target = resolve(dirname(file), spec);
    if (existsSync(target)) out.push(rel(target));
  }
  return out;
}

/**
 * The import cycles of a graph: one per strongly connected component of more than one
 * module (or a module importing itself), each as a path `a → b → … → a`.
 */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): { modules: string[]; path: string[] }[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((modules) => ({ modules, path: cyclePath(graph, new Set(modules)) }));
}

/** One cycle through a strongly connected component, found breadth-first from its first module. */
function cyclePath(graph: ReadonlyMap<string, readonly string[]>, members: Set<string>): string[] {
  const start = [...members][0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

describe("the cycle finder", () => {
  it("should name each cycle as a path back to its start, and ignore a graph's acyclic part", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c", "d"]],
      ["c", ["a"]],
      ["d", []],
      ["e", ["e"]],
    ]);
    expect(cyclesOf(graph)).toEqual([
      { modules: ["a", "b", "c"], path: ["a", "b", "c", "a"] },
      { modules: ["e"], path: ["e", "e"] },
    ]);
  });

  it("should find no cycle in a graph without one", () => {
    expect(
      cyclesOf(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", []],
        ]),
      ),
    ).toEqual([]);
  });
});

describe("the src/ import graph", () => {
  const graph = new Map(sourceFiles(src).map((f) => [rel(f), importsOf(f)]));
  const cycles = cyclesOf(graph);

  it("should see the modules' imports, type-only ones included (the scan is not vacuous)", () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get("src/app.ts")).toContain("src/registry/registry.ts");
    // surface.ts imports surface-entry.ts only for types: the edge counts all the same.
    expect(graph.get("src/registry/surface.ts")).toContain("src/registry/surface-entry.ts");
  });

  it("should have no import cycle among src/ modules", () => {
    const found = cycles.filter((c) => !(c.modules.join(" ") in ALLOWED_CYCLES)).map((c) => c.path.join(" → "));
    expect(found, "break the cycle: move what both sides need into a module of its own, or pass it in").toEqual([]);
  });

  it("should keep every allowed cycle real", () => {
    const present = new Set(cycles.map((c) => c.modules.join(" ")));
    for (const modules of Object.keys(ALLOWED_CYCLES))
      expect(present.has(modules), `the cycle of ${modules} is gone: drop it from ALLOWED_CYCLES`).toBe(true);
  });
});
