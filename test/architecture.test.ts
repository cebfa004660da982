import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The architecture rules of STYLE.md and SPEC §8, checked on the source:
 * - one chokepoint: only `src/dispatch/dispatcher.ts` invokes a surface entry, and only
 *   `src/registry/` runs a tool definition's body;
 * - domain code knows nothing about GraphQL: only the GraphQL door (`src/graphql/`), the
 *   server that mounts it and the CLI that starts the server import GraphQL packages or
 *   `src/graphql/`, directly or through other modules;
 * - the typed client (`tai42/client`, `src/client/`) runs in a browser: it imports nothing
 *   of the server, no Node built-in, and only the client packages it names.
 */

const root = resolve(import.meta.dirname, "..");
const src = join(root, "src");
const rel = (file: string) => relative(root, file).split("\\").join("/");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === "generated" || d.name === "node_modules" ? [] : sourceFiles(path);
    return /\.(ts|mts|cts|tsx)$/.test(d.name) && !d.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** A reference to a body-running member, and where it is. */
interface Use {
  file: string;
  line: number;
  member: "SurfaceEntry.invoke" | "ToolDefinition.execute";
  text: string;
  /** Lexically inside an object-literal `invoke` / `run` / `resume` implementation (a layer over a base entry). */
  inLayer: boolean;
}

/**
 * Every call of `SurfaceEntry.invoke` or `ToolDefinition.execute` in src/, found by the
 * type checker (so `entry.invoke(…)`, `alias.invoke(…)`, `entry["invoke"](…)` and
 * `entry.invoke.call(…)` all count, and a GraphQL `execute` or a private `this.execute`
 * does not). Only files that mention the names are type-checked, to keep this fast.
 */
function bodyCalls(): Use[] {
  const candidates = sourceFiles(src).filter((f) =>
    /(\.\s*|\[\s*["'])(invoke|execute)\b/.test(readFileSync(f, "utf8")),
  );
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const program = ts.createProgram(candidates, { ...config!.options, noEmit: true });
  const checker = program.getTypeChecker();
  const owners: Record<string, Use["member"]> = {
    "src/registry/surface-entry.ts:SurfaceEntry:invoke": "SurfaceEntry.invoke",
    "src/tools/definition.ts:ToolDefinition:execute": "ToolDefinition.execute",
  };
  const memberOf = (node: ts.Expression): Use["member"] | undefined => {
    const target = ts.isPropertyAccessExpression(node)
      ? node.name
      : ts.isElementAccessExpression(node)
        ? node.argumentExpression
        : undefined;
    const decl = target && checker.getSymbolAtLocation(target)?.declarations?.[0];
    if (
      !decl ||
      !(ts.isPropertySignature(decl) || ts.isMethodSignature(decl)) ||
      !ts.isInterfaceDeclaration(decl.parent)
    )
      return undefined;
    return owners[`${rel(decl.getSourceFile().fileName)}:${decl.parent.name.text}:${decl.name.getText()}`];
  };
  const inLayer = (node: ts.Node): boolean => {
    for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
      const named =
        (ts.isPropertyAssignment(n) || ts.isMethodDeclaration(n)) && ts.isObjectLiteralExpression(n.parent)
          ? n.name.getText()
          : undefined;
      if (named && ["invoke", "run", "resume"].includes(named)) return true;
    }
    return false;
  };
  const uses: Use[] = [];
  for (const file of candidates) {
    const sf = program.getSourceFile(file)!;
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node)) {
        let callee = node.expression;
        // entry.invoke.call(…) / .apply(…) / .bind(…)
        if (ts.isPropertyAccessExpression(callee) && ["call", "apply", "bind"].includes(callee.name.text)) {
          const inner = memberOf(callee.expression);
          if (inner) callee = callee.expression;
        }
        const member = memberOf(callee);
        if (member) {
          const { line } = sf.getLineAndCharacterOfPosition(node.getStart());
          uses.push({
            file: rel(file),
            line: line + 1,
            member,
            text: node.getText().split("\n")[0].slice(0, 80),
            inLayer: inLayer(node),
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return uses;
}

/**
 * Files allowed to run a tool definition's body outside src/registry/, and why. Keep this
 * list short: each entry is a second place where a body runs.
 */
const EXECUTE_ELSEWHERE: Record<string, string> = {
  "src/extensions/builtin/worker-entry.ts":
    "the worker_thread BACKEND's thread entry: it runs, in that thread, the body the chokepoint dispatched to the branch",
};

describe("the chokepoint rule", () => {
  let uses: Use[];
  beforeAll(() => {
    uses = bodyCalls();
  }, 60_000);

  it("should find the chokepoint's own calls (the scan is not vacuous)", () => {
    expect(uses.some((u) => u.member === "SurfaceEntry.invoke" && u.file === "src/dispatch/dispatcher.ts")).toBe(true);
    expect(uses.some((u) => u.member === "ToolDefinition.execute" && u.file.startsWith("src/registry/"))).toBe(true);
  });

  it("should invoke a surface entry only from src/dispatch/dispatcher.ts, or from a layer delegating to its base", () => {
    const outside = uses.filter(
      (u) => u.member === "SurfaceEntry.invoke" && u.file !== "src/dispatch/dispatcher.ts" && !u.inLayer,
    );
    expect(
      outside.map((u) => `${u.file}:${u.line} ${u.text}`),
      "run tools through Dispatcher.run (src/dispatch/dispatcher.ts), never entry.invoke",
    ).toEqual([]);
  });

  it("should run a tool definition's body only in src/registry/", () => {
    const outside = uses.filter(
      (u) =>
        u.member === "ToolDefinition.execute" && !u.file.startsWith("src/registry/") && !(u.file in EXECUTE_ELSEWHERE),
    );
    expect(
      outside.map((u) => `${u.file}:${u.line} ${u.text}`),
      "a definition's execute runs only behind a surface entry built in src/registry/",
    ).toEqual([]);
  });

  it("should keep every allowed exception to the rule real", () => {
    for (const file of Object.keys(EXECUTE_ELSEWHERE))
      expect(
        uses.some((u) => u.file === file),
        `${file} no longer runs a body: drop it from EXECUTE_ELSEWHERE`,
      ).toBe(true);
  });
});

/** GraphQL packages, by import specifier. */
function isGraphqlPackage(spec: string): boolean {
  // Yoga's event targets are plain EventTarget pub/sub (no GraphQL inside); the bus uses the Redis one (STACK.md).
  if (/^@graphql-yoga\/(redis-event-target|typed-event-target)$/.test(spec)) return false;
  return (
    /^(graphql|graphql-[^/]+|gql\.tada)(\/|$)/.test(spec) ||
    /^@(graphql-[^/]+|pothos|envelop|escape\.tech\/graphql-armor[^/]*)(\/|$)/.test(spec)
  );
}

const importCache = new Map<string, string[]>();

/** Every module specifier a file imports or re-exports, statically or dynamically (type-only imports included). */
function importsOf(file: string): string[] {
  const cached = importCache.get(file);
  if (cached) return cached;
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const specs: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      specs.push(node.moduleSpecifier.text);
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      specs.push(node.argument.literal.text);
    else if (ts.isCallExpression(node) && node.arguments.length && ts.isStringLiteralLike(node.arguments[0])) {
      const isDynamic = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === "require";
      if (isDynamic || isRequire) specs.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  importCache.set(file, specs);
  return specs;
}

/**
 * The folders of src/ that may know about GraphQL: the GraphQL door, the server that
 * mounts it, the CLI (whose `tai serve` starts that server), and the typed client that
 * speaks GraphQL to it from the other side. Everything else is domain code, shared by
 * every door.
 */
const GRAPHQL_DOORS = ["src/graphql/", "src/server/", "src/cli/", "src/client/"];

describe("domain code and GraphQL", () => {
  const files = sourceFiles(src);
  const isDoor = (file: string) => GRAPHQL_DOORS.some((d) => rel(file).startsWith(d));
  const local = (from: string, spec: string) => (spec.startsWith(".") ? rel(resolve(dirname(from), spec)) : null);

  it("should check the domain folders named in STYLE.md", () => {
    const folders = new Set(files.filter((f) => !isDoor(f)).map((f) => rel(f).split("/")[1]));
    for (const f of ["dispatch", "registry", "auth", "tools", "retry", "db", "events"])
      expect(folders, `src/${f}/`).toContain(f);
  });

  it("should never import a GraphQL package or src/graphql/ outside the GraphQL door, the server and the CLI", () => {
    const offenders = files
      .filter((f) => !isDoor(f))
      .flatMap((f) =>
        importsOf(f)
          .filter((spec) => isGraphqlPackage(spec) || local(f, spec)?.startsWith("src/graphql/"))
          .map((spec) => `${rel(f)} imports "${spec}"`),
      );
    expect(
      offenders,
      "domain code must stay usable by every door (CLI, agent, MCP): move GraphQL concerns into src/graphql/",
    ).toEqual([]);
  });

  it("should not reach GraphQL through another module either", () => {
    const byPath = new Map(files.map((f) => [rel(f), f]));
    const graphqlAware = new Set(
      files.filter((f) => rel(f).startsWith("src/graphql/") || importsOf(f).some(isGraphqlPackage)).map(rel),
    );
    const offenders: string[] = [];
    for (const start of files.filter((f) => !isDoor(f))) {
      const seen = new Set<string>();
      const queue: { file: string; via: string[] }[] = [{ file: rel(start), via: [] }];
      while (queue.length) {
        const { file, via } = queue.shift()!;
        if (seen.has(file)) continue;
        seen.add(file);
        if (file !== rel(start) && graphqlAware.has(file)) {
          offenders.push([rel(start), ...via, file].join(" → "));
          break;
        }
        const path = byPath.get(file);
        if (!path) continue;
        for (const spec of importsOf(path)) {
          const target = local(path, spec);
          if (target && byPath.has(target))
            queue.push({ file: target, via: file === rel(start) ? via : [...via, file] });
        }
      }
    }
    expect(offenders, "an import chain from domain code reaches GraphQL").toEqual([]);
  });
});

/** The packages tai42/client may import (a bare name or one of its subpaths), and why. */
const CLIENT_PACKAGES: Record<string, string> = {
  "graphql-ws": "subscriptions over WebSocket (its browser-safe `graphql-ws/client` entry)",
  "graphql-sse": "subscriptions over SSE",
  "gql.tada": "typed documents",
  graphql: "printing a document to its query text",
};

describe("tai42/client's import graph", () => {
  const client = join(src, "client");
  const files = sourceFiles(client);
  const packageOf = (spec: string) =>
    (spec.startsWith("@") ? spec.split("/").slice(0, 2) : spec.split("/").slice(0, 1)).join("/");

  it("should check the client's sources (the scan is not vacuous)", () => {
    expect(files.map(rel)).toEqual(
      expect.arrayContaining(["src/client/index.ts", "src/client/create-client.ts", "src/client/resuming-stream.ts"]),
    );
  });

  it("should stay inside src/client/ and the client packages: no server code, no Node built-in", () => {
    const offenders = files.flatMap((f) =>
      importsOf(f)
        .filter((spec) =>
          spec.startsWith(".")
            ? !resolve(dirname(f), spec).startsWith(client + "/")
            : !(packageOf(spec) in CLIENT_PACKAGES),
        )
        .map((spec) => `${rel(f)} imports "${spec}"`),
    );
    expect(
      offenders,
      `tai42/client runs in browsers: it may import only src/client/ and ${Object.keys(CLIENT_PACKAGES).join(", ")}`,
    ).toEqual([]);
  });

  it("should import graphql-ws only through its client entry, which holds no server code", () => {
    const specs = files.flatMap((f) => importsOf(f).filter((spec) => packageOf(spec) === "graphql-ws"));
    expect(specs.length).toBeGreaterThan(0);
    expect(new Set(specs)).toEqual(new Set(["graphql-ws/client"]));
  });

  it("should depend on every client package at run time (package.json dependencies)", () => {
    const { dependencies } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const used = new Set(
      files.flatMap((f) =>
        importsOf(f)
          .filter((spec) => !spec.startsWith(".") && !spec.startsWith("node:"))
          .map(packageOf),
      ),
    );
    for (const name of used) expect(dependencies, name).toHaveProperty([name]);
  });
});
