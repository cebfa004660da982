import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The declarations tai42/client publishes (dist/client/*.d.ts, what its `exports` give
 * `types` without the tai42-source condition; dist/ is built by the test global setup),
 * compiled as a user's project compiles them: the typed-client fixture of
 * test/client/types.test.ts, copied into a project outside the checkout whose
 * node_modules/tai42 links to it (as `npm link tai42` does) and whose tsconfig has no
 * custom conditions and checks libraries too (skipLibCheck off), so a declaration that
 * the build broke (the `@ts-ignore` of src/client/graphql.ts lost) fails here.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const FIXTURE = fileURLToPath(new URL("types/typed-client.ts", import.meta.url));

const TSCONFIG = {
  compilerOptions: {
    target: "ES2024",
    lib: ["ES2024", "DOM"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  },
  include: ["src"],
};

let project: string;
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "tai42-types-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-frontend", private: true, type: "module" }));
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(TSCONFIG));
  mkdirSync(join(project, "src"));
  copyFileSync(FIXTURE, join(project, "src", "typed-client.ts"));
  mkdirSync(join(project, "node_modules"));
  symlinkSync(ROOT, join(project, "node_modules", "tai42"), "dir");
});
afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

/** tsc's output for the project, with `args`; "" when it compiles. */
async function tsc(...args: string[]): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [TSC, "-p", project, ...args], {
    cwd: project,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((e: { stdout: string; stderr: string }) => e);
  return `${stdout}${stderr}`;
}

describe("tai42/client's published declarations (dist/client/*.d.ts) in a user's project", () => {
  it("should resolve tai42/client to dist/client's declarations, not to the sources", async () => {
    const files = (await tsc("--listFilesOnly")).split("\n").map((f) => f.trim());
    const dist = join(ROOT, "dist", "client");
    for (const name of ["index.d.ts", "graphql.d.ts", "check-document.d.ts", "graphql-env.d.ts", "create-client.d.ts"])
      expect(files).toContain(join(dist, name));
    expect(files.filter((f) => f.startsWith(join(ROOT, "src")))).toEqual([]);
  }, 60_000);

  it("should type results, variables, unknown fields and subscriptions through them exactly as the fixture's @ts-expect-error lines say", async () => {
    // tsc fails on an error the fixture does not expect, on an expected one that does not
    // happen (an unknown field that compiles), and, with skipLibCheck off, on an error in
    // a published declaration.
    expect(await tsc()).toBe("");
  }, 120_000);
});
