import { describe, expect, it } from "vitest";
import { composeSystem, DEFAULT_SYSTEM, renderTemplate, templateValue } from "../../../src/agent/tools-agent/prompt.ts";

describe("templateValue: what a {{placeholder}} names", () => {
  it("should follow a dotted path through nested objects", () => {
    expect(templateValue({ user: { name: { first: "Ada" } } }, "user.name.first")).toBe("Ada");
    expect(templateValue({ list: [10, 20] }, "list.1")).toBe(20);
  });

  it("should give undefined for a missing step, a step through a non-object, or an inherited property", () => {
    expect(templateValue({ a: {} }, "a.b")).toBeUndefined();
    expect(templateValue({ a: "text" }, "a.length")).toBeUndefined();
    expect(templateValue({ a: null }, "a.b")).toBeUndefined();
    expect(templateValue({}, "toString")).toBeUndefined();
    expect(templateValue({ a: {} }, "a.constructor")).toBeUndefined();
  });

  it("should give falsy values as they are", () => {
    expect(templateValue({ zero: 0, no: false, empty: "", none: null }, "zero")).toBe(0);
    expect(templateValue({ no: false }, "no")).toBe(false);
    expect(templateValue({ empty: "" }, "empty")).toBe("");
    expect(templateValue({ none: null }, "none")).toBeNull();
  });
});

describe("renderTemplate: templated prompt text", () => {
  it("should put strings as they are and other values as JSON", () => {
    const { text, issues } = renderTemplate(
      "Hi {{name}}, limits {{limits}}, count {{ n }}, ok {{ok}}",
      { name: "Ada", limits: { max: 2 }, n: 3, ok: true },
      "/systemMessage",
    );
    expect(issues).toEqual([]);
    expect(text).toBe('Hi Ada, limits {"max":2}, count 3, ok true');
  });

  it("should fill every occurrence of a placeholder", () => {
    expect(renderTemplate("{{x}} and {{x}}", { x: "y" }, "/p").text).toBe("y and y");
  });

  it("should name each placeholder without a value at the path, and keep it in the text", () => {
    const { text, issues } = renderTemplate("{{a}} {{b.c}} {{a}}", {}, "/userMessage");
    expect(issues.map((i) => i.message)).toEqual([
      "the placeholder {{a}} has no value (pass it in variables)",
      "the placeholder {{b.c}} has no value (pass it in variables)",
      "the placeholder {{a}} has no value (pass it in variables)",
    ]);
    expect(issues.every((i) => i.path === "/userMessage")).toBe(true);
    expect(text).toBe("{{a}} {{b.c}} {{a}}");
  });

  it("should leave braces that are not placeholders alone", () => {
    const template = "code { x } and {{ 1abc }} and {single}";
    expect(renderTemplate(template, {}, "/p")).toEqual({ text: template, issues: [] });
  });

  it("should not re-read a value that itself looks like a placeholder", () => {
    expect(renderTemplate("{{a}}", { a: "{{b}}", b: "no" }, "/p")).toEqual({ text: "{{b}}", issues: [] });
  });
});

describe("composeSystem: a run's system prompt", () => {
  it("should use the default system message when the run gives none, and nothing more without tools, skills or format", () => {
    expect(composeSystem(null, [], null)).toBe(DEFAULT_SYSTEM);
    expect(composeSystem("Be brief.", [], null)).toBe("Be brief.");
  });

  it("should list the tools that declare a snippet, and each shared guideline once", () => {
    const system = composeSystem("S", [], null, [
      { name: "search", promptSnippet: "finds pages", promptGuidelines: ["Cite sources.", "Be exact."] },
      { name: "plain" },
      { name: "fetch", promptSnippet: "reads a page", promptGuidelines: ["Cite sources."] },
    ]);
    expect(system).toBe(
      [
        "S",
        "## Tools\n- search: finds pages\n- fetch: reads a page",
        "## Tool guidelines\n- Cite sources.\n- Be exact.",
      ].join("\n\n"),
    );
  });

  it("should give guidelines even when no tool has a snippet", () => {
    expect(composeSystem("S", [], null, [{ name: "t", promptGuidelines: ["Ask first."] }])).toBe(
      "S\n\n## Tool guidelines\n- Ask first.",
    );
  });

  it("should add the skills in order under their names, their instructions trimmed", () => {
    const system = composeSystem(
      "S",
      [
        { name: "writing", instructions: "  Write tersely.\n" },
        { name: "math", instructions: "Show work." },
      ],
      null,
    );
    expect(system).toBe("S\n\n## Skills\n\n### writing\nWrite tersely.\n\n### math\nShow work.");
  });

  it("should end with the answer format as its JSON Schema, after everything else", () => {
    const schema = { type: "object", required: ["n"] };
    const system = composeSystem("S", [{ name: "k", instructions: "i" }], schema, [
      { name: "t", promptSnippet: "does" },
    ]);
    const sections = system.split("\n\n");
    expect(sections[0]).toBe("S");
    expect(sections[1].startsWith("## Tools")).toBe(true);
    expect(system.indexOf("## Skills")).toBeLessThan(system.indexOf("## Answer format"));
    expect(system.endsWith(JSON.stringify(schema))).toBe(true);
    expect(system).toContain("reply with only a JSON value");
  });
});
