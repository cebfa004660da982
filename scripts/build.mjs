#!/usr/bin/env node
// Compiles src/ to dist/ (JavaScript, declarations, source maps) with tsc, bundles the
// dashboard (src/dashboard/ → dist/dashboard/, scripts/build-dashboard.mjs), builds the
// client package (src/client/ → packages/client/dist/, packages/client/build.mjs) and stamps the
// result, so that `bin/tai.mjs` can tell compiled output from stale output cheaply.
//
//   node scripts/build.mjs              build (incremental: tsc keeps dist/.tsbuildinfo)
//   node scripts/build.mjs --if-stale   build only when dist/ is missing or older than src/
//   node scripts/build.mjs --check      exit 1, naming what changed, when dist/ is stale
//
// `npm ci` builds through `prepare`; `npm start` and `npm test` run `--if-stale` first.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

// `bin/tai.mjs` checks staleness before every command: the modules only a build (or a
// changed file) needs are loaded when used.
const builtin = (name) => process.getBuiltinModule(name);

const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the stamp of the last build lives, relative to the package root. */
export const STAMP = join("dist", ".build-stamp.json");

/** Files that are not TypeScript but ship beside the compiled code (copied as they are). */
const ASSET = /\.(mjs|cjs|json)$/;

/**
 * The dashboard's bundler, loaded only for a checkout that has a dashboard: `bin/tai.mjs`
 * imports this file on every command, and a checkout without src/dashboard/ need not ship it.
 */
const dashboard = () => builtin("node:module").createRequire(import.meta.url)("./build-dashboard.mjs");

/** The client package's build, in a checkout that has it: @tai42/client's dist/ is built with the server's. */
const clientBuild = (root) => join(root, "packages", "client", "build.mjs");

/** Builds packages/client/dist from src/client/ (packages/client/build.mjs); throws when it fails. */
function buildClientPackage(root, quiet) {
  const r = builtin("node:child_process").spawnSync(process.execPath, [clientBuild(root)], {
    cwd: root,
    stdio: quiet ? ["ignore", "pipe", "pipe"] : ["ignore", "ignore", "inherit"],
    encoding: "utf8",
  });
  if (r.status !== 0) {
    if (quiet) process.stderr.write(`${r.stdout ?? ""}${r.stderr ?? ""}`);
    throw new Error(`packages/client/build.mjs failed (exit ${r.status}): @tai42/client's dist/ was not updated`);
  }
}

/** Whether src/dashboard/ is there (then dist/dashboard/ is built from it, not by tsc). */
const withDashboard = (root) => existsSync(join(root, "src", "dashboard", "main.tsx"));

/** Whether `root` is a development checkout (sources and build config present), not an installed package. */
export function isCheckout(root = here) {
  return existsSync(join(root, "tsconfig.build.json")) && existsSync(join(root, "src"));
}

/** Every input of the build, relative to `root` with "/" separators: src/** and the tsconfig files. */
function inputs(root) {
  const out = [];
  const walk = (dir) => {
    for (const d of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${d.name}`;
      if (d.isDirectory()) walk(rel);
      else if (d.isFile()) out.push(rel);
    }
  };
  walk("src");
  for (const f of ["tsconfig.json", "tsconfig.build.json"]) if (existsSync(join(root, f))) out.push(f);
  return out.sort();
}

const sha1 = (root, rel) =>
  builtin("node:crypto")
    .createHash("sha1")
    .update(readFileSync(join(root, rel)))
    .digest("hex");

/**
 * Why dist/ does not match the sources, or null when it does. Costs one stat per source
 * file; a file is read (and hashed) only when its mtime or size moved since the build,
 * so a checkout or a touch that changed nothing does not count.
 */
export function staleness(root = here) {
  const stampFile = join(root, STAMP);
  if (!existsSync(stampFile)) return { reason: "dist/ has not been built", changed: [] };
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, "utf8"));
  } catch {
    return { reason: "dist/ has no readable build stamp", changed: [] };
  }
  const recorded = stamp.files ?? {};
  const changed = [];
  const seen = new Set();
  for (const rel of inputs(root)) {
    seen.add(rel);
    const was = recorded[rel];
    if (!was) {
      changed.push(`${rel} (new)`);
      continue;
    }
    const st = statSync(join(root, rel));
    if (st.mtimeMs === was.mtimeMs && st.size === was.size) continue;
    if (st.size !== was.size || sha1(root, rel) !== was.sha1) changed.push(rel);
  }
  for (const rel of Object.keys(recorded)) if (!seen.has(rel)) changed.push(`${rel} (deleted)`);
  return changed.length ? { reason: "the sources changed since dist/ was built", changed } : null;
}

/** One line for a person: what is stale and how to fix it. */
export function describeStaleness(s) {
  const shown = s.changed.slice(0, 3).join(", ");
  const more = s.changed.length > 3 ? ` and ${s.changed.length - 3} more` : "";
  return `${s.reason}${shown ? ` (${shown}${more})` : ""}`;
}

/** Records every input's mtime, size and hash: the stamp `staleness` compares against. */
function writeStamp(root) {
  const files = {};
  for (const rel of inputs(root)) {
    const st = statSync(join(root, rel));
    files[rel] = { mtimeMs: st.mtimeMs, size: st.size, sha1: sha1(root, rel) };
  }
  writeFileSync(join(root, STAMP), `${JSON.stringify({ builtAt: new Date().toISOString(), files }, null, 1)}\n`);
}

/** The source a dist/ file was emitted from (without its extension), or the asset it copies. */
function sourceOf(distRel) {
  const base = distRel.replace(/(\.d\.ts|\.js)(\.map)?$/, "");
  return base === distRel ? [distRel] : [`${base}.ts`, `${base}.mts`, `${base}.cts`];
}

/** Removes what dist/ still holds of deleted sources (tsc never deletes an output). */
function pruneOrphans(root) {
  const dist = join(root, "dist");
  const walk = (dir) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, d.name);
      if (d.isDirectory()) {
        walk(abs);
        if (readdirSync(abs).length === 0) rmSync(abs, { recursive: true });
        continue;
      }
      const rel = relative(dist, abs).split(sep).join("/");
      if (rel.startsWith(".")) continue; // .tsbuildinfo, .build-stamp.json
      if (rel.startsWith("dashboard/")) continue; // the bundle, rebuilt whole by every build
      if (!sourceOf(rel).some((s) => existsSync(join(root, "src", s)))) rmSync(abs);
    }
  };
  if (existsSync(dist)) walk(dist);
}

/**
 * The sources whose compiled JavaScript is not in dist/ (removed by hand, say), and the dashboard's entry when its
 * bundle is gone.
 */
function missingOutputs(root) {
  const compiled = inputs(root).filter(
    (rel) =>
      /^src\/.*(?<!\.d)\.[mc]?ts$/.test(rel) &&
      !rel.startsWith("src/dashboard/") &&
      !existsSync(join(root, "dist", rel.slice(4).replace(/ts$/, "js"))),
  );
  return withDashboard(root) && dashboard().dashboardMissing(root) ? [...compiled, "src/dashboard/main.tsx"] : compiled;
}

/** Compiles src/ into dist/, bundles the dashboard and stamps it; throws when tsc or esbuild reports an error. */
export function build(root = here, { quiet = false } = {}) {
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  if (!existsSync(tsc))
    throw new Error("typescript is not installed (a dev dependency): install with them (`npm ci`) to build dist/");
  // tsc's incremental state trusts its outputs to be there; when some are gone, start over.
  if (missingOutputs(root).length) rmSync(join(root, "dist", ".tsbuildinfo"), { force: true });
  const r = builtin("node:child_process").spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], {
    cwd: root,
    stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    encoding: "utf8",
  });
  if (r.status !== 0) {
    if (quiet) process.stderr.write(`${r.stdout ?? ""}${r.stderr ?? ""}`);
    throw new Error(`tsc -p tsconfig.build.json failed (exit ${r.status}): dist/ was not updated`);
  }
  for (const rel of inputs(root).filter((f) => f.startsWith("src/") && ASSET.test(f))) {
    const to = join(root, "dist", rel.slice("src/".length));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(root, rel), to);
  }
  pruneOrphans(root);
  if (withDashboard(root)) dashboard().buildDashboard(root, { quiet });
  if (existsSync(clientBuild(root))) buildClientPackage(root, quiet);
  writeStamp(root);
}

/**
 * Builds when dist/ is stale; returns what was stale, or null when nothing was built.
 * When only mtimes moved (same contents), the stamp is refreshed so the next check is cheap.
 */
export function buildIfStale(root = here, options = {}) {
  const missing = existsSync(join(root, STAMP)) ? missingOutputs(root) : [];
  const s =
    staleness(root) ?? (missing.length ? { reason: "dist/ lacks the output of some sources", changed: missing } : null);
  if (!s) {
    refreshStamp(root);
    return null;
  }
  if (!options.quiet) process.stderr.write(`tai42: building dist/: ${describeStaleness(s)}\n`);
  build(root, options);
  return s;
}

/** Rewrites the stamp when some input's mtime moved but nothing changed (a checkout, a re-generate). */
function refreshStamp(root) {
  const recorded = JSON.parse(readFileSync(join(root, STAMP), "utf8")).files;
  const moved = inputs(root).some((rel) => statSync(join(root, rel)).mtimeMs !== recorded[rel]?.mtimeMs);
  if (moved) writeStamp(root);
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const arg = process.argv[2];
  try {
    if (arg === "--check") {
      const s = staleness();
      if (s) {
        console.error(`tai42: ${describeStaleness(s)}; run \`npm run build\``);
        process.exit(1);
      }
    } else if (arg === "--if-stale") buildIfStale();
    else if (arg === undefined) build();
    else throw new Error(`unknown argument "${arg}" (known: --if-stale, --check)`);
  } catch (e) {
    console.error(String(e.message ?? e));
    process.exit(1);
  }
}
