#!/usr/bin/env node
// Builds @tai42/client's dist/ from the one source of the client, the repository's src/client/
// (also compiled into the server package as `tai42/client` by scripts/build.mjs):
//
//   1. tsc compiles src/client/ (JavaScript and declarations) under strict and
//      exactOptionalPropertyTypes, with no Node types (tsconfig.build.json);
//   2. gql.tada's runtime (a few hundred bytes over @0no-co/graphql.web) and its
//      declarations are vendored into dist/vendor/, and the compiled files import them
//      there: gql.tada as a dependency brings its CLI, its TypeScript plugin and
//      TypeScript itself (a peer), tens of megabytes a frontend does not need.
//
//   npm run build -w @tai42/client     (also `prepack`, so `npm pack -w packages/client` builds first)
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const dist = join(here, "dist");
const require = createRequire(join(root, "package.json"));

/** gql.tada's files, in the repository's node_modules (a dependency of the server package). */
const TADA = dirname(require.resolve("gql.tada/package.json"));

/** A bare `gql.tada` import (static, dynamic or a declaration's `import("…")`), in compiled output. */
const TADA_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])gql\.tada\2/g;

/** Compiles src/client/ into dist/ with tsc; throws with tsc's output when it fails. */
function compile() {
  const tsc = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", join(here, "tsconfig.build.json")], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tsc failed for @tai42/client (exit ${r.status}):\n${r.stdout}${r.stderr}`);
}

/** Bundles gql.tada into dist/vendor/gql-tada.js (@0no-co/graphql.web stays an import), with its declarations. */
function vendorTada() {
  const vendor = join(dist, "vendor");
  mkdirSync(join(vendor, "chunks"), { recursive: true });
  const esbuild = require("esbuild");
  esbuild.buildSync({
    entryPoints: [join(TADA, "dist", "gql-tada.mjs")],
    outfile: join(vendor, "gql-tada.js"),
    bundle: true,
    format: "esm",
    platform: "neutral",
    external: ["@0no-co/graphql.web"],
    legalComments: "none",
    logLevel: "error",
  });
  copyFileSync(join(TADA, "dist", "gql-tada.d.ts"), join(vendor, "gql-tada.d.ts"));
  copyFileSync(join(TADA, "dist", "chunks", "index-chunk.d.ts"), join(vendor, "chunks", "index-chunk.d.ts"));
  const { version, license } = JSON.parse(readFileSync(join(TADA, "package.json"), "utf8"));
  const notice = `gql.tada ${version} (${license}), https://github.com/0no-co/gql.tada\n\n`;
  writeFileSync(join(vendor, "LICENSE-gql.tada.md"), notice + readFileSync(join(TADA, "LICENSE.md"), "utf8"));
}

/** Points every compiled `gql.tada` import at the vendored copy; throws if one is left. */
function relinkTada() {
  for (const name of readdirSync(dist)) {
    if (!/\.(js|d\.ts)$/.test(name)) continue;
    const file = join(dist, name);
    const text = readFileSync(file, "utf8");
    // "./vendor/gql-tada.js" is the bundle for the JavaScript and, beside it, gql-tada.d.ts for the declarations.
    const out = text.replace(TADA_IMPORT, (_, lead, quote) => `${lead}${quote}./vendor/gql-tada.js${quote}`);
    if (/["']gql\.tada(\/[^"']*)?["']/.test(out)) throw new Error(`dist/${name} still imports gql.tada`);
    if (out !== text) writeFileSync(file, out);
  }
}

/** Builds dist/ from scratch. */
export function buildClient() {
  if (!existsSync(join(root, "src", "client", "index.ts"))) throw new Error(`no src/client/ at ${root}`);
  rmSync(dist, { recursive: true, force: true });
  compile();
  vendorTada();
  relinkTada();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    buildClient();
    console.log("built packages/client/dist");
  } catch (e) {
    console.error(String(e instanceof Error ? e.message : e));
    process.exit(1);
  }
}
