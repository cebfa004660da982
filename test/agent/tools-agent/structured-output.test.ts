import { describe, expect, it } from "vitest";
import { parseStructured } from "../../../src/agent/tools-agent/structured-output.ts";

const schema = {
  type: "object",
  properties: { n: { type: "integer" }, tag: { type: "string" } },
  required: ["n"],
  additionalProperties: false,
};

describe("parseStructured: a final answer read against the run's responseFormat", () => {
  it("should accept JSON that matches the schema, surrounding spaces included", () => {
    expect(parseStructured('  {"n": 3, "tag": "x"}\n', schema)).toEqual({ ok: true, value: { n: 3, tag: "x" } });
  });

  it("should tolerate a code fence around the JSON, with or without a language", () => {
    expect(parseStructured('```json\n{"n": 1}\n```', schema)).toEqual({ ok: true, value: { n: 1 } });
    expect(parseStructured('```\n{"n": 2}\n```', schema)).toEqual({ ok: true, value: { n: 2 } });
    expect(parseStructured('```JSON {"n": 4} ```', schema)).toEqual({ ok: true, value: { n: 4 } });
  });

  it("should give one issue quoting the start of an answer that is not JSON", () => {
    const result = parseStructured("Sure! Here it is: n = 3", schema);
    expect(result).toEqual({
      ok: false,
      issues: [{ path: "", message: 'is not JSON (the answer began: "Sure! Here it is: n = 3")' }],
    });
  });

  it("should quote at most 80 characters of a long answer that is not JSON", () => {
    const result = parseStructured(`x${"y".repeat(200)}`, schema);
    expect(result.ok).toBe(false);
    const [issue] = (result as { issues: { message: string }[] }).issues;
    expect(issue.message).toBe(`is not JSON (the answer began: ${JSON.stringify(`x${"y".repeat(79)}`)})`);
  });

  it("should not accept prose around a fence", () => {
    expect(parseStructured('Here:\n```json\n{"n": 1}\n```', schema).ok).toBe(false);
  });

  it("should list every way valid JSON misses the schema, each at its path", () => {
    const result = parseStructured('{"n": "three", "extra": true}', schema);
    expect(result.ok).toBe(false);
    const paths = (result as { issues: { path: string }[] }).issues.map((i) => i.path);
    expect(paths.length).toBeGreaterThanOrEqual(2);
    expect(paths).toContain("/n");
  });

  it("should accept any JSON value a schema allows, not only objects", () => {
    expect(parseStructured("42", { type: "number" })).toEqual({ ok: true, value: 42 });
    expect(parseStructured('"yes"', { enum: ["yes", "no"] })).toEqual({ ok: true, value: "yes" });
    expect(parseStructured("null", { type: "null" })).toEqual({ ok: true, value: null });
    expect(parseStructured('"maybe"', { enum: ["yes", "no"] }).ok).toBe(false);
  });
});
