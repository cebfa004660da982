import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Two habits of docs/architecture.md, checked on the tree: small files named for one
 * concept (none over 400 lines, tests included), functions short enough to read at once
 * (none in src/ over 80 lines), and at least as many lines of tests as of source.
 * Generated files (Prisma's clients) are not written by hand and not counted.
 */

const root = resolve(import.meta.dirname, "../..");
const MAX_LINES = 400;
const MAX_FUNCTION_LINES = 80;
const GENERATED = ["src/db/generated/"];

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|mjs)$/.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)).split("\\").join("/"))
    .filter((file) => !GENERATED.some((g) => file.startsWith(g)));
}

const lineCount = (file: string) => readFileSync(join(root, file), "utf8").split("\n").length;

/** A function's name for a failure message: its own, else the variable or property it is assigned to. */
function nameOf(node: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText(sf);
  return "<anonymous>";
}

/** Every function-like node with a body over the bound, as `file:line name (lines)`. */
function longFunctions(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const lines = sf.getLineAndCharacterOfPosition(node.end).line - first + 1;
      if (lines > MAX_FUNCTION_LINES) out.push(`${file}:${first + 1} ${nameOf(node, sf)} (${lines})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe("the size of the tree", () => {
  const src = sources("src");
  const test = sources("test");

  it("should find the source and the tests (the scan is not vacuous)", () => {
    expect(src).toContain("src/dispatch/dispatcher.ts");
    expect(test).toContain("test/architecture/sizes.test.ts");
  });

  it(`should keep every source and test file at ${MAX_LINES} lines or fewer`, () => {
    const long = [...src, ...test].map((file) => ({ file, lines: lineCount(file) })).filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it(`should keep every function at ${MAX_FUNCTION_LINES} lines or fewer`, () => {
    // Allowed longer functions, each with its reason: none.
    const long = src.filter((file) => /\.(ts|tsx)$/.test(file)).flatMap(longFunctions);
    expect(long, `functions over ${MAX_FUNCTION_LINES} lines:\n${long.join("\n")}`).toEqual([]);
  });

  it("should hold at least as many lines of tests as of source", () => {
    const sum = (files: string[]) => files.reduce((n, f) => n + lineCount(f), 0);
    expect(sum(test)).toBeGreaterThanOrEqual(sum(src));
  });
});
