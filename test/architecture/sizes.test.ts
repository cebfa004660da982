import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Two habits of docs/architecture.md, checked on the tree: small files named for one
 * concept (none over 400 lines, tests included), and at least as many lines of tests as
 * of source. Generated files (Prisma's clients) are not written by hand and not counted.
 */

const root = resolve(import.meta.dirname, "../..");
const MAX_LINES = 400;
const GENERATED = ["src/db/generated/"];

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|mjs)$/.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)).split("\\").join("/"))
    .filter((file) => !GENERATED.some((g) => file.startsWith(g)));
}

const lineCount = (file: string) => readFileSync(join(root, file), "utf8").split("\n").length;

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

  it("should hold at least as many lines of tests as of source", () => {
    const sum = (files: string[]) => files.reduce((n, f) => n + lineCount(f), 0);
    expect(sum(test)).toBeGreaterThanOrEqual(sum(src));
  });
});
