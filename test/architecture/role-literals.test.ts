import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROLES } from "../../src/auth/roles.ts";

/**
 * Access rules live in `src/auth/` (docs/security-model.md, "Where access rules live"):
 * code elsewhere asks a named rule (`isAdmin`, `isOwnerOrAdmin`, `lowerRole`, …) and never
 * compares a role itself, so no role name is written as a string literal outside it.
 */

const root = resolve(import.meta.dirname, "../..");
const src = join(root, "src");
const rel = (file: string) => relative(root, file).split("\\").join("/");

/** Generated from the schema (`npm run client:introspection`): it spells the Role enum out. */
const GENERATED = ["src/client/graphql-env.ts"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === "generated" || d.name === "node_modules" ? [] : sourceFiles(path);
    return /\.(ts|mts|cts|tsx)$/.test(d.name) ? [path] : [];
  });
}

/**
 * Every string literal (types and JSX attributes included, comments and prose not) whose whole text is a role name, as
 * `line: text`.
 */
function roleLiterals(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    false,
    fileName.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const roles = new Set<string>(ROLES);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && roles.has(node.text)) {
      found.push(`${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${node.getText(sf)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe("role literals", () => {
  it("should find no role name written as a string literal in src/ outside src/auth/", () => {
    const offenders = sourceFiles(src)
      .filter((f) => !rel(f).startsWith("src/auth/") && !GENERATED.includes(rel(f)))
      .flatMap((f) => roleLiterals(f, readFileSync(f, "utf8")).map((hit) => `${rel(f)}:${hit}`));
    expect(offenders).toEqual([]);
  });

  it("should catch a role compared, typed, or passed as a literal, and leave comments and prose alone", () => {
    const sample = [
      'if (caller.role === "ADMIN") go();',
      "const r: 'READER' | Role = `USER`;",
      'const el = <Badge role="ADMIN" />;',
      '// "ADMIN" in a comment',
      'const note = "only an ADMIN may";',
      "const msg = `you are ${role}, not ADMIN`;",
    ].join("\n");
    expect(roleLiterals("sample.tsx", sample)).toEqual(['1: "ADMIN"', "2: 'READER'", "2: `USER`", '3: "ADMIN"']);
  });

  it("should allow only generated files that exist", () => {
    for (const file of GENERATED) expect(existsSync(join(root, file)), file).toBe(true);
  });
});
