#!/usr/bin/env node
// `npm run pack [-- --pack-destination DIR] [-- --json]`: the tarballs a project of one's own installs (README "Using
// tai42 in your own project"): the root package and every workspace the root package.json lists. Each is built
// first, packed by `npm pack`, and its package.json rewritten without lifecycle scripts (and without any script or
// devDependency): npm 11 lists a local tarball's `prepare` as an install script left to review, although it never runs
// one for a tarball, and a consumer has no use for the checkout's scripts.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const destIndex = args.indexOf("--pack-destination");
const dest = resolve(destIndex >= 0 ? args[destIndex + 1] : ROOT);
const json = args.includes("--json");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** The fields of a package.json a consumer never needs: how the checkout builds, tests and reviews itself. */
const DROPPED = ["scripts", "devDependencies", "allowScripts"];

/** The folders of the workspaces the root package.json lists ("packages/client" or "packages/*"). */
function workspaces() {
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  if (!root.workspaces) return [];
  const out = execFileSync(npm, ["query", ".workspace", "--json"], { cwd: ROOT, encoding: "utf8" });
  return JSON.parse(out).map((w) => resolve(ROOT, w.location ?? w.path));
}

/** Rewrites the package.json inside `tarball` without {@link DROPPED}. */
function strip(tarball) {
  const work = mkdtempSync(join(tmpdir(), "tai42-pack-"));
  try {
    execFileSync("tar", ["-xzf", tarball, "-C", work]);
    const file = join(work, "package", "package.json");
    const pkg = JSON.parse(readFileSync(file, "utf8"));
    for (const field of DROPPED) delete pkg[field];
    writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
    const next = `${tarball}.tmp`;
    execFileSync("tar", ["-czf", next, "-C", work, "--owner=0", "--group=0", "--numeric-owner", "package"]);
    renameSync(next, tarball);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Builds and packs the package in `dir`; returns the tarball. */
function pack(dir) {
  if (dir === ROOT)
    execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale"], { cwd: ROOT, stdio: "inherit" });
  else execFileSync(npm, ["run", "build", "--if-present"], { cwd: dir, stdio: ["ignore", 2, 2] });
  const out = execFileSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", dest], {
    cwd: dir,
    encoding: "utf8",
  });
  const [{ name, filename }] = JSON.parse(out);
  const tarball = join(dest, filename);
  strip(tarball);
  return { name, tarball };
}

const packed = [ROOT, ...workspaces()].map(pack);
if (json) process.stdout.write(JSON.stringify(packed, null, 2) + "\n");
else for (const p of packed) process.stdout.write(`${p.name}: ${p.tarball}\n`);
