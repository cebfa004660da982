import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADD_TOOL, BROKEN_TOOL } from "../fixtures/user-tools.ts";
import { runCli } from "../helpers/cli.ts";

/**
 * `tai check` over a folder that may be anyone's (README §"tai check"): it runs tai42's own
 * TypeScript, never a `typescript` planted in the folder's node_modules, and prints file
 * names and diagnostics with their control characters escaped, never raw to the terminal.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SLOW = 120_000;
const OURS = (
  JSON.parse(readFileSync(join(ROOT, "node_modules/typescript/package.json"), "utf8")) as { version: string }
).version;
const ESC = "\u001b";
const RED = `${ESC}[31mred${ESC}[0m`;

let dir: string;
let marker: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tai42-check-"));
  marker = join(dir, "planted-typescript-ran");
  const files: Record<string, string> = {
    // The project even declares the planted package: it is still never loaded.
    "package.json": JSON.stringify({
      name: "hostile",
      private: true,
      type: "module",
      devDependencies: { typescript: "9.9.9" },
    }),
    "node_modules/typescript/package.json": JSON.stringify({ name: "typescript", version: "9.9.9", main: "index.js" }),
    "node_modules/typescript/index.js": `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\nmodule.exports = {};\n`,
    "tools/add.ts": ADD_TOOL,
    [`tools/${RED}.ts`]: BROKEN_TOOL,
    "tools/imports.ts": `import { x } from "./${ESC}]0;pwned${ESC}gone.ts";\nexport { x };\n`,
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  symlinkSync(ROOT, join(dir, "node_modules", "tai42"), "dir");
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const tai = (args: string[]) => runCli(args, {}, 60_000, dir);

describe("tai check over a folder with its own node_modules", () => {
  it(
    "should check with tai42's own TypeScript and never load the typescript planted in the folder",
    async () => {
      const r = await tai(["check", "tools/add.ts"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`checked 1 module (TypeScript ${OURS},`);
      expect(existsSync(marker)).toBe(false);
    },
    SLOW,
  );

  it(
    "should print a file name and a diagnostic holding terminal escapes with the escapes written out, and no raw control character",
    async () => {
      const r = await tai(["check", `tools/${RED}.ts`, "tools/imports.ts"]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^tools\/\\u001b\[31mred\\u001b\[0m\.ts:3:\d+ - error TS2339: /m);
      expect(r.stdout).toMatch(
        /^tools\/imports\.ts:1:19 - error TS2307: Cannot find module '\.\/\\u001b\]0;pwned\\u001bgone\.ts'/m,
      );
      expect((r.stdout + r.stderr).replace(/\n/g, "")).not.toMatch(/\p{Cc}/u);
      expect(existsSync(marker)).toBe(false);
    },
    SLOW,
  );

  it(
    "should name a missing file with its escapes written out",
    async () => {
      const r = await tai(["check", `tools/${ESC}[2Jabsent.ts`]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("no such file: tools/\\u001b[2Jabsent.ts");
      expect(r.stderr).not.toContain(ESC);
    },
    SLOW,
  );
});
