import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder of the running tai42 package (its package.json), compiled or from the sources. */
export const TAI42_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The dependency spec a new project takes tai42 by: the `file:` tarball the running tai42 was installed from (the
 * package.json of the folder whose node_modules holds it says so, as npm and npx write it), else "tai42".
 */
export function installedSpec(root = TAI42_ROOT): string {
  const modules = dirname(resolve(root));
  if (basename(modules) !== "node_modules") return "tai42";
  const owner = dirname(modules);
  try {
    const pkg = JSON.parse(readFileSync(join(owner, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    const spec = pkg.dependencies?.tai42;
    if (spec?.startsWith("file:") && /\.(tgz|tar\.gz)$/.test(spec))
      return `file:${resolve(owner, spec.slice("file:".length))}`;
  } catch {
    // No readable package.json above: the registry's name.
  }
  return "tai42";
}

const tai42Dependency = (name: string): string | undefined =>
  (JSON.parse(readFileSync(join(TAI42_ROOT, "package.json"), "utf8")) as { dependencies?: Record<string, string> })
    .dependencies?.[name];

/**
 * Which dependencies may run install scripts (npm 11's `allowScripts`, README "Using tai42 in your own project"):
 * better-sqlite3 compiles its binding, esbuild and prisma check their platform; Prisma's own client generation and
 * engine download are denied (tai42 ships its clients compiled and runs the JS engines).
 */
export const ALLOW_SCRIPTS = {
  "better-sqlite3": true,
  esbuild: true,
  prisma: true,
  "@prisma/client": false,
  "@prisma/engines": false,
};

const HELLO = `import { app, z } from "tai42";

app.tool(
  {
    name: "hello",
    description: "Greet someone by name.",
    input: z.object({ name: z.string().min(1).describe("who to greet") }),
    output: z.object({ greeting: z.string() }),
  },
  async ({ name }) => ({ greeting: \`Hello, \${name}!\` }),
);
`;

const HELLO_TEST = `import assert from "node:assert/strict";
import { after, test } from "node:test";
import { toolHarness } from "tai42/testing";
import "../tools/hello.ts";

// The tool runs through tai42's dispatch chokepoint (input validation, the run log), on a database of its own.
const tai = await toolHarness();
after(() => tai.close());

test("hello greets by name", async () => {
  const run = await tai.run("hello", { name: "Ada" });
  assert.equal(run.status, "SUCCEEDED");
  assert.deepEqual(run.data, { greeting: "Hello, Ada!" });
});

test("hello refuses an empty name", async () => {
  const run = await tai.run("hello", { name: "" });
  assert.equal(run.status, "FAILED");
  assert.equal(run.errorKind, "INVALID_INPUT");
});
`;

const CONFIG = `import { defineConfig } from "tai42";

// Read by every tai command run in this folder or below; environment variables override it (README).
export default defineConfig({
  modules: ["tools/hello.ts"],
  database: { url: "file:./data/tai42.db" },
  server: { port: 4000 },
});
`;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2023",
    module: "preserve",
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    skipLibCheck: true,
  },
  include: ["tools", "test", "tai42.config.ts"],
};

/** The files of a new project (path → content), for a folder named `name`. */
export function scaffoldFiles(name: string, spec: string): Record<string, string> {
  const tsx = tai42Dependency("tsx");
  const pkg = {
    name: name.toLowerCase().replace(/[^a-z0-9._-]+/g, "-") || "my-tools",
    version: "0.1.0",
    private: true,
    type: "module",
    scripts: {
      start: "tai serve",
      dev: "tai dev",
      test: "node --import tsx --test test/*.test.ts",
      check: "tai check",
    },
    dependencies: { tai42: spec },
    ...(tsx ? { devDependencies: { tsx } } : {}),
    allowScripts: ALLOW_SCRIPTS,
  };
  return {
    "package.json": JSON.stringify(pkg, null, 2) + "\n",
    "tsconfig.json": JSON.stringify(TSCONFIG, null, 2) + "\n",
    "tai42.config.ts": CONFIG,
    "tools/hello.ts": HELLO,
    "test/hello.test.ts": HELLO_TEST,
    ".gitignore": "node_modules/\ndata/\n",
  };
}

/** The scaffold's files that already exist in `dir` (init refuses to overwrite them; package.json is merged). */
export const existingFiles = (dir: string, files: Record<string, string>): string[] =>
  Object.keys(files).filter((f) => f !== "package.json" && existsSync(join(dir, f)));

type Pkg = Record<string, unknown> & Partial<Record<"scripts" | "dependencies" | "devDependencies", object>>;

/**
 * The scaffold's package.json merged under an existing one (`npm i tai42.tgz && npx tai init`): what it has wins (its
 * tai42 spec, its own scripts), the scaffold adds what it lacks.
 */
export function mergedPackageJson(existing: string, scaffold: string): string {
  const [had, add] = [JSON.parse(existing) as Pkg, JSON.parse(scaffold) as Pkg];
  const merged: Pkg = { ...add, ...had, type: had.type ?? add.type };
  for (const field of ["scripts", "dependencies", "devDependencies", "allowScripts"] as const)
    merged[field] = { ...(add[field] as object), ...(had[field] as object) };
  return JSON.stringify(merged, null, 2) + "\n";
}
