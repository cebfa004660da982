import { describe, expect, it } from "vitest";
import { documentLines, manifestChanges } from "../../src/dashboard/api/manifest-diff.ts";
import { manifestText, parseManifestText } from "../../src/dashboard/api/manifest-text.ts";
import { parseManifest, serializeManifest } from "../../src/cli/manifest-file.ts";

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
      { sign: "+", where: "extensions", what: "calculate" },
      { sign: "~", where: "extensions", what: "echo" },
      { sign: "-", where: "extensionsModules", what: "tai42/contrib" },
      { sign: "-", where: "retry", what: "echo" },
    ]);
    expect(manifestChanges(next, next)).toEqual([]);
    const lines = documentLines(manifest.document, next);
    expect(lines.filter((l) => l.sign === "-").map((l) => l.text)).toContain("          label: nightly");
    expect(lines.filter((l) => l.sign === "+").map((l) => l.text)).toContain("          label: daily");
  });
});
