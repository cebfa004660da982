import { describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import type { BranchTool } from "../../src/extensions/extension.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { definitionRefusal } from "../helpers/refusals.ts";

const tool = { name: "word_count", description: "Count words.", parameters: { type: "object" }, execute: () => 1 };
const passThrough = (t: BranchTool) => t;

describe("every declaration refusal is one DefinitionError carrying its rule and issues", () => {
  it("should name the first rule a tool breaks and list every issue at its JSON-pointer path", () => {
    const e = definitionRefusal(() =>
      defineTool({ ...tool, tier: "root", timeoutSeconds: -1, promptGuidelines: ["ok", " "] }),
    );
    expect(e.rule).toBe("tool.field-type");
    expect(e.subject).toBe("word_count");
    expect(e.issues.map((i) => i.path)).toEqual(["/tier", "/timeoutSeconds", "/promptGuidelines/1"]);
    expect(e.message).toContain('defineTool [field-type]: "word_count": tier must be one of');
    expect(e.message).toContain("timeoutSeconds must be a number > 0");
  });

  it("should rank a missing field before a badly typed one", () => {
    const e = definitionRefusal(() => defineTool({ ...tool, description: "", tier: "root" }));
    expect(e.rule).toBe("tool.required-field");
    expect(e.issues).toEqual(
      expect.arrayContaining([{ path: "/description", message: "is required and must not be empty" }]),
    );
  });

  it("should put a retry policy's issues under /retry", () => {
    const e = definitionRefusal(() => defineTool({ ...tool, retry: { maxAttempts: 0, idempotent: true } }));
    expect(e.rule).toBe("tool.retry-policy");
    expect(e.issues.map((i) => i.path)).toEqual(["/retry/maxAttempts"]);
  });

  it("should refuse an extension with a rule named extension.<rule>", () => {
    expect(
      definitionRefusal(() =>
        new App().extension({ name: "x", kind: "PLUGIN" as never, description: "X.", create: passThrough }),
      ).rule,
    ).toBe("extension.kind");
    expect(
      definitionRefusal(() =>
        new App().extension({ name: "x y", kind: "WRAPPER", description: "X.", create: passThrough }),
      ).rule,
    ).toBe("extension.wire-safe-name");
    expect(
      definitionRefusal(() =>
        new App().extension({ name: "x", kind: "WRAPPER", description: "X.", create: passThrough, colour: 1 } as never),
      ).issues,
    ).toEqual([{ path: "/colour", message: "is not an extension field" }]);
  });

  it("should refuse a timeout longer than a timer can wait, and an apiTool that is null, each at its path", () => {
    const e = definitionRefusal(() => defineTool({ ...tool, timeoutSeconds: 3_000_000, apiTool: null } as never));
    expect(e.issues).toEqual([
      { path: "/timeoutSeconds", message: "must be at most 2147483 (a timer cannot wait longer)" },
      { path: "/apiTool", message: "must be a boolean" },
    ]);
  });

  it("should refuse an extension's own tool with the extension's rule, its issues under /tools/<i>", () => {
    const e = definitionRefusal(() =>
      new App().extension({
        name: "x",
        kind: "WRAPPER",
        description: "X.",
        create: passThrough,
        tools: [{ ...tool, name: "no good" }],
      }),
    );
    expect(e.rule).toBe("extension.tools");
    expect(e.issues.map((i) => i.path)).toEqual(["/tools/0/name"]);
    expect(e.message).toMatch(/^app\.extension: "x": tools\[0\]: defineTool \[wire-safe-name\]/);
  });

  it("should refuse a malformed plugin with rule plugin.shape and its issues", () => {
    const e = definitionRefusal(() => new App().plugin({ name: "p", configProvider: { name: "c" } } as never));
    expect(e.rule).toBe("plugin.shape");
    expect(e.issues).toEqual([{ path: "/configProvider/lookup", message: "must be a function" }]);
  });
});
