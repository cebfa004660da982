import { describe, expect, it } from "vitest";
import { documentLines, manifestChanges } from "../../src/dashboard/api/manifest-diff.ts";
import { manifestText, parseManifestText } from "../../src/dashboard/api/manifest-text.ts";
import { parseManifest, serializeManifest } from "../../src/cli/manifest-file.ts";
import { MANIFEST_DOCUMENT_SCHEMA } from "../../src/manifests/validate-document.ts";
import { validate } from "../../src/tools/json-schema.ts";

const manifest = {
  name: "prod",
  description: "The production surface.",
  document: {
    retry: { echo: { maxAttempts: 3, idempotent: true } },
    extensions: { echo: [[{ name: "label", config: { label: "nightly" } }]] },
    tools: { include: ["echo", "calculate"] },
    extensionsModules: ["tai42/contrib"],
  },
};

describe("the manifest editor's text and diff (the dashboard's own code, in Node)", () => {
  it("should write a manifest exactly as `tai manifests export` does, in YAML and JSON, and read it back", () => {
    for (const format of ["yaml", "json"] as const) {
      const text = manifestText(manifest, format);
      expect(text).toBe(serializeManifest(manifest, format));
      expect(parseManifestText(text, format)).toEqual({ file: parseManifest(text, format, `prod.${format}`) });
    }
  });

  it("should name the line and column where JSON or YAML stops parsing, and refuse a file without a name", () => {
    expect(parseManifestText('{\n  "name": "a",\n  "tools": }\n', "json").problem).toMatchObject({
      line: 3,
      column: 12,
    });
    expect(parseManifestText("name: a\ntools:\n  include: [echo\n", "yaml").problem).toEqual({
      message: "Flow sequence in block collection must be sufficiently indented and end with a ]",
      line: 4,
      column: 1,
    });
    expect(parseManifestText("tools: {}\n", "yaml").problem?.message).toBe('"name" is required: a string');
    expect(parseManifestText("- a\n", "yaml").problem?.message).toBe("must be a mapping with at least a name");
  });

  it("should say what activating changes: selection, combos, modules and retry, gained, lost or changed", () => {
    const next = {
      tools: { include: ["echo", "clock"], exclude: ["kv_*"] },
      extensions: { echo: [[{ name: "label", config: { label: "daily" } }]], calculate: ["monitor"] },
      retry: {},
    };
    expect(manifestChanges(manifest.document, next)).toEqual([
      { sign: "+", where: "tools.include", what: "clock" },
      { sign: "-", where: "tools.include", what: "calculate" },
      { sign: "+", where: "tools.exclude", what: "kv_*" },
      { sign: "+", where: "extensions", what: "calculate_monitor" },
      { sign: "~", where: "extensions", what: "echo_label" },
      { sign: "-", where: "extensionsModules", what: "tai42/contrib" },
      { sign: "-", where: "retry", what: "echo" },
    ]);
    expect(manifestChanges(next, next)).toEqual([]);
    const lines = documentLines(manifest.document, next);
    expect(lines.filter((l) => l.sign === "-").map((l) => l.text)).toContain("          label: nightly");
    expect(lines.filter((l) => l.sign === "+").map((l) => l.text)).toContain("          label: daily");
  });

  it("should tell branches apart in the diff: a combo written either way is the same, a changed setting or combo is not", () => {
    const one = { extensions: { echo: ["monitor"], calculate: [["label"], ["monitor"]] } };
    const same = { extensions: { echo: [[{ name: "monitor" }]], calculate: [[{ name: "label" }], ["monitor"]] } };
    expect(manifestChanges(one, same)).toEqual([]);
    const next = {
      extensions: { echo: [[{ name: "monitor", config: { level: 2 } }]], calculate: [["label", "monitor"]] },
    };
    expect(manifestChanges(one, next)).toEqual([
      { sign: "-", where: "extensions", what: "calculate_label" },
      { sign: "+", where: "extensions", what: "calculate_label_monitor" },
      { sign: "-", where: "extensions", what: "calculate_monitor" },
      { sign: "~", where: "extensions", what: "echo_monitor" },
    ]);
  });

  it("should say a tool named constructor or toString is added, not changed (names every object inherits)", () => {
    expect(
      manifestChanges(
        { extensions: {}, retry: {} },
        { extensions: { constructor: ["monitor"] }, retry: { toString: { maxAttempts: 2 } } },
      ),
    ).toEqual([
      { sign: "+", where: "extensions", what: "constructor_monitor" },
      { sign: "+", where: "retry", what: "toString" },
    ]);
  });

  it("should refuse a billion-laughs YAML as a problem, not throw while the editor renders", () => {
    const levels = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    const text = levels
      .map(
        (l, i) =>
          `${l}: &${l} [${Array(9)
            .fill(i ? `*${levels[i - 1]}` : '"lol"')
            .join(", ")}]`,
      )
      .join("\n");
    const parsed = parseManifestText(`name: bomb\n${text}\n`, "yaml");
    expect(parsed.problem?.message).toMatch(/^cannot be read: Excessive alias count/);
  });

  it("should read a `!!js/function` tag as plain text and keep a `__proto__` key a key, through a format switch, for the server to refuse", () => {
    expect(
      parseManifestText("name: x\ntools: !!js/function 'function () { return 1 }'\n", "yaml").file?.document,
    ).toEqual({
      tools: "function () { return 1 }",
    });
    const parsed = parseManifestText("name: x\n__proto__:\n  polluted: true\ntools:\n  include: [echo]\n", "yaml");
    expect(({} as Record<string, unknown>).polluted).toBe(undefined);
    const json = manifestText(parsed.file!, "json");
    expect(JSON.parse(json)).toEqual(
      JSON.parse('{"name":"x","tools":{"include":["echo"]},"__proto__":{"polluted":true}}'),
    );
    const back = parseManifestText(manifestText(parseManifestText(json, "json").file!, "yaml"), "yaml").file!;
    expect(Object.keys(back.document)).toEqual(["tools", "__proto__"]);
    expect(validate(MANIFEST_DOCUMENT_SCHEMA, back.document).map((i) => i.path)).toEqual(["/__proto__"]);
  });
});
