import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runUser } from "../helpers/npm.ts";
import { startServer, type ServerUnderTest } from "./support.ts";

/**
 * @tai42/client (packages/client), the client as a frontend installs it: built from
 * src/client/, packed with its lifecycle scripts skipped (as `npm run pack` packs every
 * workspace), and installed ALONE into an empty project, with nothing of the server.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PACKAGE = join(ROOT, "packages", "client");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const FIXTURES = join(ROOT, "test", "client", "types");
const MB = 1024 * 1024;

let work: string;
let app: string;
let tarball: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "tai42-client-package-"));
  app = join(work, "my-frontend");
  mkdirSync(app);
  const build = await runUser(process.execPath, [join(PACKAGE, "build.mjs")], ROOT);
  if (build.code !== 0) throw new Error(`the client's build failed: ${build.stderr}`);
  const pack = await runUser(
    "npm",
    ["pack", "-w", "packages/client", "--ignore-scripts", "--json", "--pack-destination", work],
    ROOT,
  );
  if (pack.code !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  tarball = join(work, (JSON.parse(pack.stdout) as { filename: string }[])[0].filename);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "my-frontend", private: true, type: "module" }));
  const install = await runUser("npm", ["install", "--no-audit", "--no-fund", tarball], app);
  if (install.code !== 0) throw new Error(`npm install of the client's tarball failed: ${install.stderr}`);
  process.stdout.write(`client-package: npm install ${install.seconds.toFixed(1)} s\n`);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The packages npm installed (its hidden lockfile: one entry per installed package folder). */
function installedPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(app, "node_modules", ".package-lock.json"), "utf8")) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages).filter((p) => p.startsWith("node_modules/"));
}

describe("@tai42/client installed alone into an empty project", () => {
  it("should take under 10 MB and under 20 packages, its dependencies only what a browser client needs", async () => {
    const { stdout } = await promisify(execFile)("du", ["-sb", join(app, "node_modules")]);
    const bytes = Number(stdout.split(/\s/)[0]);
    const packages = installedPackages();
    process.stdout.write(
      `client-package: node_modules ${(bytes / MB).toFixed(2)} MB (${bytes} bytes), ${packages.length} packages: ` +
        `${packages.map((p) => p.slice("node_modules/".length)).join(", ")}\n`,
    );
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(10 * MB);
    expect(packages.length).toBeLessThan(20);
    for (const heavy of ["typescript", "gql.tada", "better-sqlite3", "@prisma/client", "graphql-yoga"])
      expect(packages, heavy).not.toContain(`node_modules/${heavy}`);
    const installed = join(app, "node_modules", "@tai42", "client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    // Every package its JavaScript imports is a dependency of its own, and nothing more is.
    const imported = new Set<string>();
    for (const file of readdirSync(join(installed, "dist"), { recursive: true, encoding: "utf8" }))
      if (file.endsWith(".js"))
        for (const [, spec] of readFileSync(join(installed, "dist", file), "utf8").matchAll(/\bfrom\s*"([^".][^"]*)"/g))
          imported.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
    expect([...imported].sort()).toEqual(Object.keys(manifest.dependencies).sort());
    // Nothing runs when it is installed (its build and prepack run in this checkout only).
    for (const hook of ["preinstall", "install", "postinstall", "prepare"])
      expect(manifest.scripts?.[hook], hook).toBe(undefined);
    expect(manifest.version).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
  });

  it("should compile the README's example and the typed-dispatch fixture with tsc --strict --exactOptionalPropertyTypes", async () => {
    const src = join(app, "src");
    mkdirSync(src, { recursive: true });
    // The fixtures import "tai42/client" (the server package's export); here the same code uses the client package.
    for (const name of ["typed-dispatch.ts", "typed-client.ts"]) {
      const text = readFileSync(join(FIXTURES, name), "utf8").replace(/from "tai42\/client"/g, 'from "@tai42/client"');
      expect(text).toContain('from "@tai42/client"');
      writeFileSync(join(src, name), text);
    }
    copyFileSync(join(FIXTURES, "demo-tools.ts"), join(src, "demo-tools.ts"));
    const tsconfig = {
      compilerOptions: {
        target: "ES2024",
        lib: ["ES2024", "DOM"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        allowImportingTsExtensions: true,
        skipLibCheck: false,
        // `process.env.TAI_KEY` in the README's example: Node's types, from this checkout (the project has none).
        typeRoots: [join(ROOT, "node_modules", "@types")],
        types: ["node"],
      },
      include: ["src"],
    };
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify(tsconfig));
    const args = [TSC, "-p", app, "--strict", "--exactOptionalPropertyTypes", "--noEmit"];
    const listed = await promisify(execFile)(process.execPath, [...args, "--listFilesOnly"], { cwd: app });
    expect(listed.stdout).toContain(join(app, "node_modules", "@tai42", "client", "dist", "index.d.ts"));
    expect(listed.stdout).not.toContain(join(ROOT, "src"));
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, {
      cwd: app,
      maxBuffer: 16 * MB,
    }).catch((e: { stdout: string; stderr: string }) => e);
    // tsc fails on an error the fixtures do not expect and on an expected one (@ts-expect-error) that does not happen.
    expect(`${stdout}${stderr}`).toBe("");
  }, 180_000);

  describe("against a real server", () => {
    let server: ServerUnderTest;
    beforeAll(async () => {
      server = await startServer();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it("should run a tool and stream its events from the installed package in plain Node", async () => {
      const program = `
        import { createTaiClient } from "@tai42/client";
        const tai = createTaiClient({ url: process.env.TAI_URL, apiKey: process.env.TAI_KEY });
        const run = await tai.dispatch("calculate", { op: "power", a: 2, b: 10 });
        const types = [];
        for await (const e of tai.runEvents({ runId: run.id, afterSeq: 0 })) if (types.push(e.type) === 2) break;
        await tai.close();
        console.log(JSON.stringify({ status: run.status, data: run.data, types }));
      `;
      writeFileSync(join(app, "run.mjs"), program);
      const ran = await runUser(process.execPath, ["run.mjs"], app, { TAI_URL: server.url });
      expect(ran.stderr).toBe("");
      expect(JSON.parse(ran.stdout)).toEqual({
        status: "SUCCEEDED",
        data: { result: 1024 },
        types: ["RUN_STARTED", "RUN_FINISHED"],
      });
    }, 60_000);
  });
});

describe("the server package beside it", () => {
  it("should still ship tai42/client (dist/client) for its existing users", async () => {
    const pack = await runUser("npm", ["pack", "--dry-run", "--ignore-scripts", "--json"], ROOT);
    expect(pack.code).toBe(0);
    const files = (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(["dist/client/index.js", "dist/client/index.d.ts"]));
    expect(files.filter((f) => f.startsWith("packages/"))).toEqual([]);
    const exported = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).exports["./client"];
    expect(exported).toMatchObject({ types: "./dist/client/index.d.ts", default: "./dist/client/index.js" });
  }, 120_000);
});
