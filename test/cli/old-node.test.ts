import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * `tai` on a Node.js tai42 does not run on (the machine's own Node 20 here and in CI; the suite itself runs on 24):
 * one line naming the fix, exit code 2, before anything is loaded (issue 30, Node).
 */
const SYSTEM_NODE = "/usr/bin/node";
const version = existsSync(SYSTEM_NODE)
  ? execFileSync(SYSTEM_NODE, ["-p", "process.versions.node"]).toString().trim()
  : "";
const [major, minor] = version.split(".").map(Number);
const old = version !== "" && (major < 22 || (major === 22 && minor < 15));
if (process.env.CI === "true" && !old)
  throw new Error(`CI's system Node (${SYSTEM_NODE}) is expected to be older than 22.15`);

describe.runIf(old)(`tai on the system's Node.js ${version}`, () => {
  for (const args of [["serve"], ["--help"], ["tools", "list"]])
    it(`should print one line naming Node.js 22.15+ or 24 and how to get it, and exit 2, for tai ${args.join(" ")}`, () => {
      const r = spawnSync(SYSTEM_NODE, ["bin/tai.mjs", ...args], { encoding: "utf8", timeout: 30_000 });
      expect(r.status).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(
        `tai: tai42 needs Node.js 22.15+ or 24 (24 LTS recommended), not ${version}: install it (https://nodejs.org), ` +
          "or in a tai42 checkout run `. scripts/use-node24.sh` first (Node.js 24 from the npm registry)\n",
      );
    });
});
