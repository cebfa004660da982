import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

type Locked = { hasInstallScript?: boolean };
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  scripts: Record<string, string>;
  allowScripts: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, Locked>;
};

describe("install scripts (npm 11's allowScripts)", () => {
  it("every locked dependency with an install script is approved or denied, so npm ci runs none unreviewed", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, p]) => path && p.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ""));
    expect(withScripts.filter((name) => !(name in pkg.allowScripts))).toEqual([]);
    // Entries name packages (any version): a pinned entry would fall silent on the next upgrade.
    expect(Object.keys(pkg.allowScripts).filter((k) => /.@/.test(k))).toEqual([]);
  });

  it("runs better-sqlite3's build and never Prisma's engine download", () => {
    expect(pkg.allowScripts).toMatchObject({ "better-sqlite3": true, "@prisma/engines": false });
  });

  it("tai42 itself has no install script: an installed tarball runs nothing of tai42's, and prepare builds a checkout", () => {
    expect(Object.keys(pkg.scripts).filter((s) => ["preinstall", "install", "postinstall"].includes(s))).toEqual([]);
    expect(lock.packages[""].hasInstallScript).toBeUndefined();
    expect(pkg.scripts.prepare).toBe("node scripts/prisma.mjs generate-all && node scripts/build.mjs --if-stale");
  });
});
