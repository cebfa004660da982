import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADD_TOOL, BROKEN_TOOL } from "../fixtures/user-tools.ts";
import { limiter, runCli } from "../helpers/cli.ts";
import { readmeBlock } from "../helpers/readme.ts";

// A user's own project, outside the checkout (no tsconfig.json or node_modules above it):
// `tai` runs the checkout's dist/, as it does through `npm link tai42`.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SLOW = 120_000;
const limit = limiter(2);

function project(files: Record<string, string>, linked: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), "tai42-user-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "my-tools", private: true, type: "module" }));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  if (linked) {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ROOT, join(dir, "node_modules", "tai42"), "dir");
  }
  return dir;
}

const tai = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  limit(() => runCli(args, env, 60_000, cwd));

let bare: string;
let linked: string;
beforeAll(() => {
  bare = project(
    {
      "tools/add.ts": ADD_TOOL,
      "tools/nested.ts": `import "./lib/helper.ts";\n`,
      "tools/lib/helper.ts": ADD_TOOL,
      "tools/deps.ts": `import "left-pad-nowhere";\nimport "./gone.ts";\n`,
    },
    false,
  );
  linked = project(
    {
      "tools/add.ts": ADD_TOOL,
      "tools/broken.ts": BROKEN_TOOL,
      "tools/plain.js": "export {};\n",
      "tools/pages.ts": readmeBlock("// tools/pages.ts"),
    },
    true,
  );
});
afterAll(() => {
  for (const dir of [bare, linked]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a project without tai42 installed", () => {
  it.concurrent(
    "should refuse a module that imports tai42 by saying it cannot import tai42 and how to install it, not that the file is missing",
    async ({ expect }) => {
      const r = await tai(bare, ["tools", "list"], { TAI_MODULES: "tools/add.ts" });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'failed to load module "tools/add.ts": cannot import tai42 from tools/add.ts: install it with npm i tai42',
      );
      expect(r.stderr).not.toContain("file not found");
    },
    SLOW,
  );

  it.concurrent(
    "should name the imported file that lacks tai42 when the module reaches it through another file",
    async ({ expect }) => {
      const r = await tai(bare, ["tools", "list"], { TAI_MODULES: "tools/nested.ts" });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'failed to load module "tools/nested.ts": cannot import tai42 from tools/lib/helper.ts',
      );
    },
    SLOW,
  );

  it.concurrent(
    "should name another missing package as not installed, and a module path that does not exist as not found",
    async ({ expect }) => {
      const pkg = await tai(bare, ["tools", "list"], { TAI_MODULES: "tools/deps.ts" });
      expect(pkg.code).toBe(2);
      expect(pkg.stderr).toContain(
        "cannot import left-pad-nowhere from tools/deps.ts: the package left-pad-nowhere is not installed there (npm i left-pad-nowhere)",
      );
      const file = await tai(bare, ["tools", "list"], { TAI_MODULES: "tools/absent.ts" });
      expect(file.code).toBe(2);
      expect(file.stderr).toContain('failed to load module "tools/absent.ts": file not found');
    },
    SLOW,
  );
});

describe("a project linking tai42 (npm link)", () => {
  it(
    "should run its tool through tools run, migrating the default SQLite database under its own ./data on first use",
    async () => {
      const r = await tai(linked, ["tools", "run", "add", "--input", '{"a":2,"b":40}'], {
        TAI_MODULES: "tools/add.ts",
        TAI_DEMO: "0",
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ tool: "add", status: "SUCCEEDED", data: { sum: 42 } });
      expect(existsSync(join(linked, "data", "tai42.db"))).toBe(true);
    },
    SLOW,
  );

  it.concurrent(
    "tai check should pass a module that type-checks against the installed package and exit 0",
    async ({ expect }) => {
      const r = await tai(linked, ["check", "tools/add.ts"]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(
        /^checked 1 module \(TypeScript \d+\.\d+\.\d+, options from tai42's defaults .*\): no type errors$/m,
      );
    },
    SLOW,
  );

  it.concurrent(
    "tai check should pass the README's fetch_title example",
    async ({ expect }) => {
      const r = await tai(linked, ["check", "tools/pages.ts"]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
    },
    SLOW,
  );

  it.concurrent(
    "tai check should report each type error as file:line:col with its code, and exit 1",
    async ({ expect }) => {
      // The modules default to TAI_MODULES; a .js module is not type-checked.
      const r = await tai(linked, ["check"], { TAI_MODULES: "tools/add.ts,tools/broken.ts,tools/plain.js" });
      expect(r.code).toBe(1);
      expect(r.stdout.trim().split("\n")).toEqual([
        `tools/broken.ts:3:${BROKEN_TOOL.split("\n")[2].indexOf("toUpperCase") + 1} - error TS2339: Property 'toUpperCase' does not exist on type 'number'.`,
        "tools/broken.ts:4:7 - error TS2322: Type 'number' is not assignable to type 'string'.",
      ]);
      expect(r.stderr).toMatch(/^2 type errors in 2 modules /m);
    },
    SLOW,
  );

  it.concurrent(
    "tai check should use the project's tsconfig.json when it has one",
    async ({ expect }) => {
      const dir = project(
        {
          "tools/loose.ts": "export function f(x) { return x; }\n",
          "tsconfig.json": JSON.stringify({
            compilerOptions: { strict: false, module: "NodeNext", moduleResolution: "NodeNext" },
          }),
        },
        false,
      );
      try {
        const loose = await tai(dir, ["check", "tools/loose.ts"]);
        expect(loose.code, loose.stdout).toBe(0);
        expect(loose.stderr).toContain("options from tsconfig.json");
        rmSync(join(dir, "tsconfig.json"));
        const strict = await tai(dir, ["check", "tools/loose.ts"]);
        expect(strict.code).toBe(1);
        expect(strict.stdout).toContain(
          "tools/loose.ts:1:19 - error TS7006: Parameter 'x' implicitly has an 'any' type.",
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  it.concurrent(
    "tai check should exit 2 naming the fix when no module is named and TAI_MODULES is unset, or a named file does not exist",
    async ({ expect }) => {
      const none = await tai(linked, ["check"]);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain("name the modules to check (tai check tools/x.ts) or set TAI_MODULES");
      const missing = await tai(linked, ["check", "tools/absent.ts"]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("no such file: tools/absent.ts");
    },
    SLOW,
  );
});
