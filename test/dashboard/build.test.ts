import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleOptions, esbuildAt, META_VALIDATOR } from "../../scripts/build-dashboard.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

describe("the dashboard bundle", () => {
  /**
   * What esbuild read (`inputs`), what of it the script holds (`shipped`: tree-shaking drops the rest), and the script.
   */
  let bundle: { inputs: string[]; shipped: string[]; script: string };
  // node_modules may be a link to another checkout's: a package is what follows its last "node_modules/".
  const inPackage = (i: string) => /(^|\/)node_modules\/(.*)$/.exec(i)?.[2];
  const packageOf = (p: string) =>
    p
      .split("/")
      .slice(0, p.startsWith("@") ? 2 : 1)
      .join("/");

  beforeAll(async () => {
    const result = await esbuildAt(ROOT).build({ ...bundleOptions(ROOT, { quiet: true }), write: false });
    const scripts = Object.values(result.metafile.outputs).filter((o) => o.entryPoint);
    const shipped = scripts.flatMap((o) =>
      Object.entries(o.inputs)
        .filter(([, i]) => i.bytesInOutput > 0)
        .map(([name]) => name),
    );
    const script = result.outputFiles
      .filter((f) => f.path.endsWith(".js"))
      .map((f) => f.text)
      .join("\n");
    bundle = { inputs: Object.keys(result.metafile.inputs), shipped, script };
  }, 120_000);

  it("should hold only browser code: the dashboard, tai42/client, the tier matrix, the manifest file order, the generated meta-schema validator and browser packages", () => {
    const { inputs } = bundle;
    expect(inputs.some((i) => i.startsWith("src/dashboard/"))).toBe(true);
    expect(inputs.some((i) => i.startsWith("src/client/"))).toBe(true);
    const allowed = (i: string) =>
      /^(src\/dashboard\/|src\/client\/)/.test(i) ||
      ["src/auth/tiers.ts", "src/auth/roles.ts", "src/manifests/manifest-file-order.ts", META_VALIDATOR].includes(i) ||
      inPackage(i) !== undefined;
    expect(inputs.filter((i) => !allowed(i))).toEqual([]);
    const packages = new Set(
      inputs
        .map(inPackage)
        .filter((p) => p !== undefined)
        .map(packageOf),
    );
    expect(packages).toContain("react");
    for (const p of ["graphql-yoga", "@prisma/client", "@pothos/core", "ws", "better-sqlite3", "zod"])
      expect(packages, p).not.toContain(p);
  });

  it("should run no code made from strings (no eval, no new Function), which the page's Content-Security-Policy forbids", () => {
    // @rjsf/core's test helpers import @rjsf/validator-ajv8 (so esbuild reads ajv); none of it may be shipped.
    const shipped = new Set(
      bundle.shipped
        .map(inPackage)
        .filter((p) => p !== undefined)
        .map(packageOf),
    );
    expect(shipped).toContain("@rjsf/core");
    expect(shipped).not.toContain("@rjsf/validator-ajv8");
    // The meta-schema validator ajv compiled at build time is shipped, with the runtime helpers it requires, and
    // nothing else of ajv (its compiler makes code from strings).
    expect(bundle.shipped).toContain(META_VALIDATOR);
    const ajvFiles = bundle.shipped.map(inPackage).filter((p) => p?.startsWith("ajv/"));
    expect(ajvFiles.length).toBeGreaterThan(0);
    expect(ajvFiles.filter((p) => !p!.startsWith("ajv/dist/runtime/"))).toEqual([]);
    const evals = [/\bnew Function\s*\(/, /(?<![\w$.])Function\s*\(/, /(?<![\w$.])eval\s*\(/].flatMap(
      (re) => bundle.script.match(new RegExp(re, "g")) ?? [],
    );
    expect(evals).toEqual([]);
  });
});

describe("building the dashboard with dist/", () => {
  let checkout: string;
  const build = (arg?: string) =>
    run(process.execPath, [join(checkout, "scripts", "build.mjs"), ...(arg ? [arg] : [])], { cwd: checkout });
  const assets = () => readdirSync(join(checkout, "dist", "dashboard", "assets")).sort();

  // A checkout in miniature: the real build scripts, one server source, a one-file dashboard.
  beforeAll(async () => {
    checkout = mkdtempSync(join(tmpdir(), "tai42-dashboard-build-"));
    mkdirSync(join(checkout, "src", "cli"), { recursive: true });
    mkdirSync(join(checkout, "src", "dashboard"), { recursive: true });
    for (const f of [
      "bin/tai.mjs",
      "scripts/build.mjs",
      "scripts/build-dashboard.mjs",
      "tsconfig.build.json",
      "src/dashboard/index.html",
    ])
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
          jsx: "react-jsx",
          types: ["node"],
        },
      }),
    );
    writeFileSync(join(checkout, "package.json"), JSON.stringify({ name: "mini", type: "module" }));
    symlinkSync(join(ROOT, "node_modules"), join(checkout, "node_modules"));
    writeFileSync(join(checkout, "src", "cli", "main.ts"), `console.log("server");\n`);
    writeFileSync(join(checkout, "src", "dashboard", "look.css"), `body { color: teal; }\n`);
    writeFileSync(
      join(checkout, "src", "dashboard", "main.tsx"),
      `import "./look.css";\ndocument.body.append("v1");\n`,
    );
    await build();
  }, 120_000);
  afterAll(() => rmSync(checkout, { recursive: true, force: true }));

  it("should write index.html naming one hashed script and stylesheet, and compile no dashboard source with tsc", () => {
    const html = readFileSync(join(checkout, "dist", "dashboard", "index.html"), "utf8");
    const [js, css] = [
      /src="\/dashboard\/assets\/(app-[A-Z0-9]{8}\.js)"/.exec(html)?.[1],
      /href="\/dashboard\/assets\/(app-[A-Z0-9]{8}\.css)"/.exec(html)?.[1],
    ];
    expect(assets()).toEqual([css, js].sort());
    expect(readFileSync(join(checkout, "dist", "dashboard", "assets", js!), "utf8")).toContain("v1");
    expect(existsSync(join(checkout, "dist", "cli", "main.js"))).toBe(true);
    expect(existsSync(join(checkout, "dist", "dashboard", "main.js"))).toBe(false);
  });

  it("should count a changed dashboard source as stale, rebuild it under a new hash, and rebuild a bundle removed by hand", async () => {
    const before = assets();
    writeFileSync(
      join(checkout, "src", "dashboard", "main.tsx"),
      `import "./look.css";\ndocument.body.append("v2");\n`,
    );
    const stale = await build("--check").catch((e: { code: number; stderr: string }) => e);
    expect(stale).toMatchObject({ code: 1, stderr: expect.stringContaining("src/dashboard/main.tsx") });
    expect((await build("--if-stale")).stderr).toContain("building dist/");
    const after = assets();
    expect(after.filter((a) => a.endsWith(".js"))).not.toEqual(before.filter((a) => a.endsWith(".js")));
    expect(after.filter((a) => a.endsWith(".css"))).toEqual(before.filter((a) => a.endsWith(".css")));
    expect((await build("--if-stale")).stderr).toBe("");

    rmSync(join(checkout, "dist", "dashboard"), { recursive: true });
    expect((await build("--if-stale")).stderr).toContain("src/dashboard/main.tsx");
    expect(existsSync(join(checkout, "dist", "dashboard", "index.html"))).toBe(true);
  }, 120_000);
});
