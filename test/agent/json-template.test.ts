import { describe, expect, it } from "vitest";
import { renderJsonTemplate } from "../../src/agent/json-template.ts";

const render = (template: string, vars: Record<string, unknown>) => renderJsonTemplate(template, vars, "/rf");

describe("renderJsonTemplate: {{placeholders}} in JSON text are values, never structure", () => {
  it("should put a value outside a string as JSON", () => {
    const { text, issues } = render('{"maximum": {{max}}, "enum": {{choices}}, "flag": {{on}}, "none": {{nothing}}}', {
      max: 10,
      choices: ["a", "b"],
      on: true,
      nothing: null,
    });
    expect(issues).toEqual([]);
    expect(JSON.parse(text)).toEqual({ maximum: 10, enum: ["a", "b"], flag: true, none: null });
  });

  it("should put a value inside a string as its text, JSON-escaped", () => {
    const { text } = render('{"description": "Topic: {{topic}}!"}', { topic: 'say "hi"\nthen \\ leave' });
    expect(JSON.parse(text)).toEqual({ description: 'Topic: say "hi"\nthen \\ leave!' });
  });

  it("should put a non-string value inside a string as its JSON text", () => {
    expect(JSON.parse(render('{"d": "limits {{l}}"}', { l: { max: 2 } }).text)).toEqual({ d: 'limits {"max":2}' });
  });

  it("should keep a value that tries to close its string inside it", () => {
    const who = 'a", "enum": ["pwned"], "z": "';
    expect(JSON.parse(render('{"description": "{{who}}"}', { who }).text)).toEqual({ description: who });
  });

  it("should keep a value outside a string a single JSON value, whatever it holds", () => {
    const { text } = render('{"x": {{v}}}', { v: '1, "injected": true' });
    expect(JSON.parse(text)).toEqual({ x: '1, "injected": true' });
  });

  it("should follow dotted paths into the variables and allow spaces inside the braces", () => {
    expect(
      JSON.parse(
        render('{"a": {{ limits.max }}, "b": "{{user.name}}"}', { limits: { max: 3 }, user: { name: "Ada" } }).text,
      ),
    ).toEqual({ a: 3, b: "Ada" });
  });

  it("should name each placeholder without a value at the path, and leave it in the text", () => {
    const { text, issues } = render('{"a": {{missing}}, "b": "{{deep.gone}}"}', { deep: {} });
    expect(issues).toEqual([
      { path: "/rf", message: "the placeholder {{missing}} has no value (pass it in variables)" },
      { path: "/rf", message: "the placeholder {{deep.gone}} has no value (pass it in variables)" },
    ]);
    expect(text).toContain("{{missing}}");
  });

  it("should track strings across escaped quotes, so a placeholder after one is still inside its string", () => {
    const { text } = render('{"d": "say \\"{{w}}\\" now"}', { w: '"' });
    expect(JSON.parse(text)).toEqual({ d: 'say """ now' });
  });

  it("should leave text that is not a placeholder as it is", () => {
    const template = '{"a": "{not a placeholder}", "b": "{{1bad}}", "c": {}}';
    expect(render(template, {})).toEqual({ text: template, issues: [] });
  });
});
