import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// docs/security-model.md §6: a manifest may name extension modules only from an
// allow-list checked before any import (tai42/contrib, TAI_MODULES, files inside
// TAI_EXTENSIONS_DIR), and a manifest refused for any reason imports nothing.

const imports = () => ((globalThis as { __taiAccessImports?: string[] }).__taiAccessImports ?? []).slice();

describe("the manifest module allow-list", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let root: string;
  let allowed: string;
  let n = 0;

  /** A module file that records its own import; a fresh name each time (imports are cached). */
  const moduleFile = (dir: string) => {
    const name = `m${++n}`;
    const file = join(dir, `${name}.mjs`);
    writeFileSync(
      file,
      `globalThis.__taiAccessImports = [...(globalThis.__taiAccessImports ?? []), ${JSON.stringify(name)}];\n`,
    );
    return { file, name };
  };
  const put = (name: string, document: Record<string, unknown>, expectedVersion?: number) =>
    gql(
      `mutation($i: ManifestInput!, $v: Int) { putManifest(input: $i, expectedVersion: $v) { name version } }`,
      { i: { name, document }, v: expectedVersion ?? null },
      admin,
    );
  const stored = async () =>
    JSON.stringify([
      await rt.db.manifest.findMany({ orderBy: { name: "asc" } }),
      await rt.db.manifestVersion.findMany({ orderBy: { id: "asc" } }),
    ]);

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "tai-access-modules-"));
    allowed = join(root, "extensions");
    mkdirSync(allowed);
    rt = await testRuntime({ config: { extensionsDir: allowed } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("modules-admin", "ADMIN");
  });
  afterAll(async () => {
    await rt?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it("should refuse a manifest naming a built-in or any other package, before importing it", async () => {
    const before = await stored();
    for (const mod of ["child_process", "node:fs", "vitest"]) {
      const r = await put("evil", { extensionsModules: ["tai42/contrib", mod] });
      expect(r.errors).toMatchObject([
        {
          extensions: {
            code: "BAD_USER_INPUT",
            issues: [
              {
                path: "/document/extensionsModules/1",
                message: expect.stringContaining(`module "${mod}" is not allowed`),
              },
            ],
          },
        },
      ]);
    }
    expect(await stored()).toBe(before);
  });

  it("should refuse files outside TAI_EXTENSIONS_DIR, also through '..' or a symlink, and import none of them", async () => {
    const outside = moduleFile(root);
    const escape = join(allowed, "..", `${outside.name}.mjs`);
    const before = await stored();
    for (const ref of [outside.file, escape, "./src/index.ts"]) {
      const r = await put("outside", { extensionsModules: [ref] });
      expect(r.errors).toMatchObject([
        {
          extensions: {
            code: "BAD_USER_INPUT",
            issues: [{ path: "/document/extensionsModules/0", message: expect.stringContaining("is not allowed") }],
          },
        },
      ]);
    }
    expect(imports()).not.toContain(outside.name);
    expect(await stored()).toBe(before);
  });

  it("should import nothing for a manifest refused for any other reason: a bad name, unstorable text, a stale version", async () => {
    const mod = moduleFile(allowed);
    expect((await put("bad name!", { extensionsModules: [mod.file] })).errors).toMatchObject([
      { extensions: { code: "BAD_USER_INPUT", issues: [{ path: "/name" }] } },
    ]);
    expect(
      (await put("nul", { extensionsModules: [mod.file], tools: { include: ["a\u0000b"] } })).errors,
    ).toMatchObject([{ extensions: { code: "BAD_USER_INPUT" } }]);
    expect((await put("fresh", { tools: { include: ["echo"] } })).errors).toBeUndefined();
    expect((await put("fresh", { extensionsModules: [mod.file] }, 7)).errors).toMatchObject([
      { extensions: { code: "CONFLICT" } },
    ]);
    expect((await put("absent", { extensionsModules: [mod.file] }, 3)).errors).toMatchObject([
      { extensions: { code: "NOT_FOUND" } },
    ]);
    expect(imports()).not.toContain(mod.name);
  });

  it("should accept tai42/contrib and a module file inside TAI_EXTENSIONS_DIR, importing it on a valid write", async () => {
    const mod = moduleFile(allowed);
    const r = await put("good", { extensionsModules: ["tai42/contrib", mod.file] });
    expect(r.errors).toBeUndefined();
    expect(imports()).toContain(mod.name);
  });

  it("should load none of a stored active manifest's modules that the list does not allow (written before the rule)", async () => {
    const outside = moduleFile(root);
    await rt.db.manifest.updateMany({ data: { active: false } });
    await rt.db.manifest.create({
      data: { name: "legacy", document: { extensionsModules: [outside.file] }, active: true },
    });
    await rt.stored.load();
    expect(imports()).not.toContain(outside.name);
    expect(rt.logLines.some((l) => l.includes(`module \\"${outside.file}\\" is not allowed`))).toBe(true);
  });
});
