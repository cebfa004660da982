// Bundles the dashboard (src/dashboard/: React, react-jsonschema-form and tai42/client)
// for the browser with esbuild into dist/dashboard/, which the server serves at /dashboard.
// Called by scripts/build.mjs after tsc; the build stamp covers src/dashboard/ like any
// other source.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";

/** The dashboard's sources, relative to the package root: bundled by esbuild, never compiled by tsc. */
export const DASHBOARD_SRC = "src/dashboard";

/** Where the bundle goes, relative to the package root: `index.html` and `assets/`. */
export const DASHBOARD_OUT = "dist/dashboard";

const ENTRY = `${DASHBOARD_SRC}/main.tsx`;

/** Files of src/dashboard/public/ are copied into assets/ under their own names (the favicon). */
const PUBLIC = `${DASHBOARD_SRC}/public`;

/**
 * Where the build writes ajv's standalone validator of the draft 2020-12 meta-schema, relative to the package root
 * (git-ignored, not shipped: it is bundled into the dashboard's script). The dashboard imports it as
 * `tai42-meta-schema-validator`.
 */
export const META_VALIDATOR = "dist/dashboard-gen/meta-schema-2020-12.cjs";

/**
 * Writes {@link META_VALIDATOR}: ajv compiles the meta-schema it ships (draft 2020-12, with its vocabularies) into
 * plain JavaScript here, at build time, so the page validates schemas without `new Function`, which its
 * Content-Security-Policy forbids. The code requires only ajv's runtime helpers (`ajv/dist/runtime/*`), which esbuild
 * bundles. Formats are not checked (the server, with ajv-formats, checks them on save).
 */
export function writeMetaValidator(root) {
  const require = createRequire(join(root, "package.json"));
  const { Ajv2020 } = require("ajv/dist/2020.js");
  const standalone = require("ajv/dist/standalone/index.js").default;
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, code: { source: true } });
  const code = standalone(ajv, ajv.getSchema("https://json-schema.org/draft/2020-12/schema"));
  const file = join(root, META_VALIDATOR);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, code);
}

/** Whether the bundle is missing (removed by hand, or never built). */
export function dashboardMissing(root) {
  return !existsSync(join(root, DASHBOARD_OUT, "index.html"));
}

/** esbuild, as the package at `root` has it (a dev dependency, like typescript). */
export function esbuildAt(root) {
  return createRequire(join(root, "package.json"))("esbuild");
}

/** The bundle's esbuild options (the tests bundle with them too, to see what goes in). */
export function bundleOptions(root, { quiet = false } = {}) {
  writeMetaValidator(root);
  return {
    absWorkingDir: root,
    entryPoints: { app: ENTRY },
    bundle: true,
    outdir: join(DASHBOARD_OUT, "assets"),
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    jsx: "automatic",
    minify: true,
    legalComments: "none",
    // `tai42/client` resolves to its TypeScript source, bundled like the dashboard's own.
    conditions: ["tai42-source"],
    define: { "process.env.NODE_ENV": '"production"' },
    alias: { "tai42-meta-schema-validator": `./${META_VALIDATOR}` },
    // @rjsf/core's test registry imports the ajv validator without declaring it; nothing
    // the dashboard uses reaches that code, and the forms validate without eval
    // (src/dashboard/forms/), so it is never bundled or installed.
    external: ["@rjsf/validator-ajv8"],
    metafile: true,
    logLevel: quiet ? "error" : "warning",
  };
}

/**
 * Bundles the dashboard into dist/dashboard/ (replacing what was there): one script and
 * one stylesheet named by content hash under assets/, and index.html naming them.
 * Throws when esbuild reports an error.
 */
export function buildDashboard(root, { quiet = false } = {}) {
  const out = join(root, DASHBOARD_OUT);
  rmSync(out, { recursive: true, force: true });
  const result = esbuildAt(root).buildSync(bundleOptions(root, { quiet }));
  const outputs = Object.entries(result.metafile.outputs);
  const [script, meta] = outputs.find(([, o]) => o.entryPoint === ENTRY) ?? [];
  if (!script) throw new Error(`esbuild produced no bundle for ${ENTRY}`);
  const href = (file) => `/dashboard/assets/${basename(file)}`;
  const template = readFileSync(join(root, DASHBOARD_SRC, "index.html"), "utf8").replace("%SCRIPT%", href(script));
  const html = meta.cssBundle
    ? template.replace("%STYLES%", href(meta.cssBundle))
    : template.replace(/^.*%STYLES%.*\n/m, "");
  writeFileSync(join(out, "index.html"), html);
  if (existsSync(join(root, PUBLIC))) {
    mkdirSync(join(out, "assets"), { recursive: true });
    for (const f of readdirSync(join(root, PUBLIC))) copyFileSync(join(root, PUBLIC, f), join(out, "assets", f));
  }
}
