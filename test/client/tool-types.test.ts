import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OUTPUT, renderDemoToolTypes } from "../../scripts/client-tool-types.ts";
import { renderToolTypes } from "../../src/cli/tool-types.ts";
import { runCli } from "../helpers/cli.ts";
import { cliDatabase } from "../helpers/cli-database.ts";
import { startServer, type ServerUnderTest } from "./support.ts";

const SLOW = 120_000;
/** The generated module without its two-line header (which names where the surface came from). */
const body = (text: string) => text.split("\n").slice(2).join("\n");

/** tsc's diagnostics for `files` (path → text) under strict + exactOptionalPropertyTypes; [] when they compile. */
function compileErrors(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), "tai42-tool-types-"));
  try {
    const names = Object.entries(files).map(([name, text]) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    });
    const program = ts.createProgram(names, {
      strict: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      types: [],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("test/client/types/demo-tools.ts (`npm run client:types`)", () => {
  it(
    "should match what `tai types` writes for the demo surface",
    async () => {
      const checkedIn = readFileSync(OUTPUT, "utf8");
      const generated = await renderDemoToolTypes();
      if (checkedIn !== generated) {
        const a = checkedIn.split("\n");
        const b = generated.split("\n");
        const at = a.findIndex((line, n) => line !== b[n]);
        expect.fail(
          "test/client/types/demo-tools.ts is out of date with the demo tools' schemas: run `npm run client:types` and " +
            `commit the result.\nFirst difference at line ${at + 1}:\n  checked in: ${JSON.stringify(a[at])}\n` +
            `  generated:  ${JSON.stringify(b[at])}`,
        );
      }
    },
    SLOW,
  );
});

describe("the tool map `tai types` writes", () => {
  it("should quote tool names that are not identifiers, type a tool without an output schema unknown, and compile", async () => {
    const text = await renderToolTypes(
      [
        { name: "make-slug", inputSchema: { type: "object", properties: { title: { type: "string" } } } },
        {
          name: "2fa_check",
          inputSchema: {
            type: "object",
            properties: { tree: { $ref: "#/$defs/node" } },
            required: ["tree"],
            additionalProperties: false,
            $defs: {
              node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } },
            },
          },
          outputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
        },
      ],
      "a test",
    );
    expect(text).toContain("export interface TaiTools {");
    expect(text).toMatch(/"make-slug": \{/);
    expect(text).toMatch(/"2fa_check": \{/);
    expect(text).toMatch(/"make-slug": \{[^}]*\n\s+input: \{[^}]*\};\n\s+output: unknown;/);
    const usage = [
      'import type { TaiTools } from "./tools.ts";',
      'const ok: TaiTools["2fa_check"]["output"] = { ok: true };',
      'const tree: TaiTools["2fa_check"]["input"] = { tree: { children: [{ children: [] }] } };',
      'const out: TaiTools["make-slug"]["output"] = "anything";',
      "// @ts-expect-error `tree` is required",
      'const missing: TaiTools["2fa_check"]["input"] = {};',
      "export { ok, tree, out, missing };",
    ].join("\n");
    expect(compileErrors({ "tools.ts": text, "usage.ts": usage })).toEqual([]);
  });
});

describe("the tool map `tai types` writes from schemas a server chose", () => {
  it("should write no code a schema's `tsType` or `tsEnumNames` carries, and read no file or URL a `$ref` names", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tai42-tool-types-ref-"));
    try {
      const local = join(dir, "local.json");
      writeFileSync(local, JSON.stringify({ enum: ["FROM_A_LOCAL_FILE"] }));
      const code = "string; }; output: unknown; }; }; export const PWN = 1; export interface Q { r: { s: { t: string";
      const text = await renderToolTypes(
        [
          {
            name: "hostile",
            inputSchema: {
              type: "object",
              properties: {
                a: { tsType: code },
                file: { $ref: local },
                url: { $ref: "http://127.0.0.1:9/schema.json", description: "fetched from nowhere" },
                e: { type: "string", enum: ["x", "y"], tsEnumNames: ["X = 1 } export const K = 2; enum L { M", "Y"] },
                tsType: { type: "string" },
                own: { $ref: "#/$defs/n" },
              },
              required: ["tsType"],
              $defs: { n: { type: "integer", tsType: "never" } },
            },
          },
        ],
        "a test",
      );
      for (const leaked of ["PWN", "FROM_A_LOCAL_FILE", "export const", "enum"]) expect(text).not.toContain(leaked);
      expect(text).toMatch(/\n\s+a\?: unknown;\n\s+file\?: unknown;\n/);
      expect(text).toMatch(/\n\s+e\?: "x" \| "y";\n\s+tsType: string;\n\s+own\?: number;\n/);
      const usage = [
        'import type { TaiTools } from "./tools.ts";',
        'const x: TaiTools["hostile"]["input"] = { tsType: "kept", own: 1, e: "y" };',
        "export { x };",
      ].join("\n");
      expect(compileErrors({ "tools.ts": text, "usage.ts": usage })).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("should keep a tool named __proto__ or constructor (names the name pattern allows) in the map", async () => {
    const input = { type: "object", properties: { z: { type: "string" } }, required: ["z"] };
    const text = await renderToolTypes(
      [
        { name: "__proto__", inputSchema: input },
        { name: "constructor", inputSchema: input },
      ],
      "a test",
    );
    const usage = [
      'import type { TaiTools } from "./tools.ts";',
      'const a: TaiTools["__proto__"]["input"] = { z: "a" };',
      'const b: TaiTools["constructor"]["input"] = { z: "b" };',
      "// @ts-expect-error `z` is required",
      'const c: TaiTools["__proto__"]["input"] = {};',
      "export { a, b, c };",
    ].join("\n");
    expect(compileErrors({ "tools.ts": text, "usage.ts": usage })).toEqual([]);
  });
});

describe("tai types (the compiled CLI)", () => {
  let env: Record<string, string>;
  let dir: string;
  let server: ServerUnderTest;
  beforeAll(async () => {
    const { url, user } = await cliDatabase();
    env = {
      DATABASE_URL: url,
      TAI_KEY: user,
      TAI_MODULES: "test/fixtures/typed-tools.ts,test/fixtures/curated-tools.ts",
    };
    dir = mkdtempSync(join(tmpdir(), "tai42-types-cli-"));
    server = await startServer();
  }, SLOW);
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    "should write the local surface's types to --out: the modules' tools (quoted names), the demo tools, no curated one",
    async () => {
      const out = join(dir, "tai-tools.ts");
      const r = await runCli(["types", "--out", out], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^wrote the types of \d+ tools to /);
      const text = readFileSync(out, "utf8");
      expect(text).toContain("from the tool surface of the local runtime;");
      expect(text).toMatch(/"make-slug": \{\n[^]*?input: \{\n\s+title: string;\n\s+maxLength\?: number;/);
      expect(text).toMatch(/"make-slug": \{[^]*?output: \{\n\s+slug: string;/);
      expect(text).toMatch(/"2fa_check": \{[^]*?output: unknown;/);
      expect(text).toMatch(/\n {2}calculate: \{/);
      expect(text).not.toContain("curated_lookup");
      expect(text).not.toContain(env.TAI_KEY);
    },
    SLOW,
  );

  it(
    "should read a running server's surface with --url and print what `npm run client:types` wrote for it",
    async () => {
      const r = await runCli(["types", "--url", server.url], {});
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`from the tool surface of ${server.url};`);
      expect(body(r.stdout)).toBe(body(readFileSync(OUTPUT, "utf8")));
    },
    SLOW,
  );

  it(
    "should refuse an unreachable --url and a bad key in one line each, exit 2",
    async () => {
      const bad = await runCli(["types", "--url", server.url, "--key", "not-a-key"], {});
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^error \(UNAUTHENTICATED\): .* refused to list its tools: /);
      expect(bad.stderr).not.toContain("not-a-key");
      const gone = await runCli(["types", "--url", "http://127.0.0.1:9/graphql"], {});
      expect(gone.code).toBe(2);
      expect(gone.stderr).toMatch(
        /^error \(UNAVAILABLE\): cannot read the tools of http:\/\/127\.0\.0\.1:9\/graphql: /,
      );
      const notUrl = await runCli(["types", "--url", "localhost:4000"], {});
      expect(notUrl.code).toBe(2);
      expect(notUrl.stderr).toContain("must be");
    },
    SLOW,
  );
});
