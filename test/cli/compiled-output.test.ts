import { execFile, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/databases.ts";
import { freePort, limiter } from "../helpers/cli.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RECORDER = join(ROOT, "test", "fixtures", "record-loads.mjs");
const SLOW = 120_000;
const limit = limiter(2);
const run = promisify(execFile);

/** Where loaded modules are recorded, one file per spawned process. */
let dir: string;
let databaseUrl: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tai42-compiled-"));
  databaseUrl = (await freshDatabase("sqlite")).url;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cleanEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith("TAI_") && !["DATABASE_URL", "HOST", "PORT", "NODE_OPTIONS"].includes(k),
    ),
  );

/**
 * Runs `node bin/tai.mjs …args` from the repository root with every loaded module's URL
 * recorded; resolves when it exits, or once stdout shows `until` (then it is stopped).
 */
function taiLoads(
  args: string[],
  env: Record<string, string> = {},
  until?: string,
): Promise<{ code: number | null; stdout: string; stderr: string; loaded: string[] }> {
  const out = join(dir, `${Math.random().toString(36).slice(2)}.txt`);
  return limit(
    () =>
      new Promise((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ["--import", pathToFileURL(RECORDER).href, join(ROOT, "bin", "tai.mjs"), ...args],
          {
            cwd: ROOT,
            env: { ...cleanEnv(), TAI_LOG: "silent", DATABASE_URL: databaseUrl, RECORD_LOADS_OUT: out, ...env },
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        let stdout = "";
        let stderr = "";
        let stopped = false;
        const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
        child.stdout.on("data", (d) => {
          stdout += d;
          // Once: a second SIGTERM would end it before it records what it loaded.
          if (until && !stopped && stdout.includes(until)) stopped = child.kill("SIGTERM");
        });
        child.stderr.on("data", (d) => (stderr += d));
        child.on("error", reject);
        child.on("close", (code) => {
          clearTimeout(timer);
          let loaded: string[] = [];
          try {
            loaded = readFileSync(out, "utf8").split("\n");
          } catch {
            // No record file: the child loaded nothing.
          }
          resolve({ code, stdout, stderr, loaded });
        });
      }),
  );
}

/** The modules loaded from the repository's `folder`, as paths from its root ("dist/cli/main.js"). */
const own = (loaded: string[], folder: "dist" | "src") => {
  const prefix = pathToFileURL(join(ROOT, folder)).href + "/";
  return loaded.filter((u) => u.startsWith(prefix)).map((u) => `${folder}/${u.slice(prefix.length)}`);
};
const packageLoaded = (loaded: string[], name: string) => loaded.some((u) => u.includes(`/node_modules/${name}/`));

describe("the tai command", () => {
  it.concurrent(
    "should answer --help from dist/ with commander alone: no source, no tsx, no server, no database",
    async ({ expect }) => {
      const r = await taiLoads(["--help"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("Usage: tai");
      expect(own(r.loaded, "dist")).toContain("dist/cli/main.js");
      expect(own(r.loaded, "src")).toEqual([]);
      for (const p of ["tsx", "graphql-yoga", "@prisma/client", "zod"])
        expect(packageLoaded(r.loaded, p), p).toBe(false);
    },
    SLOW,
  );

  it.concurrent(
    "should serve from dist/ (what npm start runs) and load no TypeScript source nor tsx on the way to listening",
    async ({ expect }) => {
      const r = await taiLoads(["serve"], { PORT: String(await freePort()) }, "listening on");
      expect(r.stdout, r.stderr).toContain("tai42 listening on");
      expect(own(r.loaded, "dist")).toEqual(
        expect.arrayContaining(["dist/cli/main.js", "dist/server/serve.js", "dist/runtime.js"]),
      );
      expect(own(r.loaded, "src")).toEqual([]);
      expect(packageLoaded(r.loaded, "tsx")).toBe(false);
    },
    SLOW,
  );

  it.concurrent(
    "should list tools without loading the server, and load tsx only for a TAI_MODULES entry written in .ts",
    async ({ expect }) => {
      const plain = await taiLoads(["tools", "list"]);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toMatch(/^echo\s/m);
      for (const p of ["tsx", "graphql-yoga", "graphql"]) expect(packageLoaded(plain.loaded, p), p).toBe(false);

      const withModule = await taiLoads(["tools", "list"], { TAI_MODULES: "test/fixtures/tier-tools.ts" });
      expect(withModule.code, withModule.stderr).toBe(0);
      expect(withModule.stdout).toMatch(/^tier_read\s/m);
      expect(packageLoaded(withModule.loaded, "tsx")).toBe(true);
      // The module's `import "tai42"` is the same compiled package the command runs.
      expect(own(withModule.loaded, "src")).toEqual([]);
      expect(own(withModule.loaded, "dist")).toContain("dist/index.js");
    },
    SLOW,
  );
});

describe("stale compiled output", () => {
  let checkout: string;
  const main = () => join(checkout, "src", "cli", "main.ts");
  const tai = () =>
    run(process.execPath, [join(checkout, "bin", "tai.mjs")], { cwd: checkout }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
  const buildIfStale = () =>
    run(process.execPath, [join(checkout, "scripts", "build.mjs"), "--if-stale"], { cwd: checkout });

  // A checkout in miniature: the real bin/, build script and build config, one source file.
  beforeAll(async () => {
    checkout = join(dir, "checkout");
    mkdirSync(join(checkout, "src", "cli"), { recursive: true });
    for (const f of ["bin/tai.mjs", "scripts/build.mjs", "tsconfig.build.json"])
      cpSync(join(ROOT, f), join(checkout, f));
    writeFileSync(
      join(checkout, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2024",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: true,
          types: ["node"],
        },
      }),
    );
    writeFileSync(join(checkout, "package.json"), JSON.stringify({ name: "mini", type: "module" }));
    symlinkSync(join(ROOT, "node_modules"), join(checkout, "node_modules"));
    writeFileSync(main(), `console.log("v1 from " + import.meta.url);\n`);
    await run(process.execPath, [join(checkout, "scripts", "build.mjs")], { cwd: checkout });
  }, SLOW);

  it(
    "should run dist/, refuse it once a source changed without a rebuild, naming the file and the fix, and run the rebuilt output",
    async () => {
      const fresh = await tai();
      expect(fresh.stdout.trim()).toBe(`v1 from ${pathToFileURL(join(checkout, "dist", "cli", "main.js")).href}`);

      // A touch that changes nothing is not a change.
      const later = new Date(Date.now() + 5_000);
      utimesSync(main(), later, later);
      expect((await tai()).stdout).toContain("v1 from");

      writeFileSync(main(), `console.log("v2 from " + import.meta.url);\n`);
      const stale = await tai();
      expect(stale.code).toBe(2);
      expect(stale.stdout).toBe("");
      expect(stale.stderr).toContain("src/cli/main.ts");
      expect(stale.stderr).toContain("npm run build");

      // What npm start, npm test and npm ci (prepare) run first.
      const rebuilt = await buildIfStale();
      expect(rebuilt.stderr).toContain("building dist/");
      expect((await tai()).stdout).toContain("v2 from");
      expect((await buildIfStale()).stderr).toBe("");

      // An output removed by hand is rebuilt too, though tsc's incremental state says current.
      rmSync(join(checkout, "dist", "cli", "main.js"));
      expect((await buildIfStale()).stderr).toContain("src/cli/main.ts");
      expect((await tai()).stdout).toContain("v2 from");
    },
    SLOW,
  );

  it("should rebuild before npm start, npm test and on npm ci, and ignore dist/ in git", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.prepare).toMatch(/&& node scripts\/build\.mjs --if-stale$/);
    expect(pkg.scripts.prestart).toBe("node scripts/build.mjs --if-stale");
    expect(pkg.scripts.start).toBe("node bin/tai.mjs serve");
    expect(pkg.scripts.build).toBe("node scripts/build.mjs");
    expect(readFileSync(join(ROOT, "test", "helpers", "global-setup.ts"), "utf8")).toMatch(/^\s+buildIfStale\(\);$/m);
    expect(readFileSync(join(ROOT, ".gitignore"), "utf8").split("\n")).toContain("dist/");
  });
});

describe("the package", () => {
  it(
    "should ship dist/ with its declarations, export it, and leave the sources and tests out",
    async () => {
      const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: ROOT,
        env: { ...process.env, npm_config_loglevel: "silent" },
      });
      const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
      expect(files).toEqual(
        expect.arrayContaining([
          "bin/tai.mjs",
          "dist/index.js",
          "dist/index.d.ts",
          "dist/extensions/contrib/index.js",
          "dist/extensions/contrib/index.d.ts",
          "dist/cli/main.js",
          "dist/db/generated/sqlite/client.js",
          "dist/extensions/builtin/worker-bootstrap.mjs",
          "scripts/prisma.mjs",
          "prisma/sqlite/schema.prisma",
        ]),
      );
      expect(
        files.filter((f) => /^(src|test|bench)\//.test(f) || f.endsWith(".map") || f.includes(".tsbuildinfo")),
      ).toEqual([]);

      // Outside the tests' own "tai42-source" condition, `tai42` is the compiled package.
      const resolved = await run(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `for (const s of ["tai42", "tai42/contrib"]) console.log(import.meta.resolve(s))`,
        ],
        { cwd: ROOT },
      );
      expect(resolved.stdout.trim().split("\n")).toEqual([
        pathToFileURL(join(ROOT, "dist", "index.js")).href,
        pathToFileURL(join(ROOT, "dist", "extensions", "contrib", "index.js")).href,
      ]);
    },
    SLOW,
  );
});
