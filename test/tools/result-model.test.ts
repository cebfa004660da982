import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.ts";
import { normalizeResult, toolResult } from "../../src/tools/result.ts";

describe("the result model", () => {
  it("should turn a string into one text block and no data", () => {
    expect(normalizeResult("t", "hello")).toEqual({
      content: [{ type: "text", text: "hello" }],
      isError: false,
      terminate: false,
      toolName: "t",
    });
  });

  it("should JSON-encode an object into one text block and keep it as data", () => {
    const r = normalizeResult("t", { words: 3, list: ["a"] });
    expect(r.content).toEqual([{ type: "text", text: '{"words":3,"list":["a"]}' }]);
    expect(r.data).toEqual({ words: 3, list: ["a"] });
    expect(r).toMatchObject({ isError: false, terminate: false, toolName: "t" });
  });

  it.each([
    [42, "42"],
    [true, "true"],
    [null, "null"],
    [[1, "two"], '[1,"two"]'],
  ])("should JSON-encode %j into a text block and keep it as data", (value, text) => {
    const r = normalizeResult("t", value);
    expect(r.content).toEqual([{ type: "text", text }]);
    expect(r.data).toEqual(value);
  });

  it("should give no content and no data for undefined", () => {
    const r = normalizeResult("t", undefined);
    expect(r.content).toEqual([]);
    expect(r.data).toBeUndefined();
    expect(r.isError).toBe(false);
  });

  it("should keep details out of the content and honour terminate", () => {
    const r = normalizeResult(
      "t",
      toolResult({ data: { n: 1 }, details: { path: "/tmp/x", lines: [1, 9] }, terminate: true }),
    );
    expect(r).toMatchObject({
      content: [{ type: "text", text: '{"n":1}' }],
      data: { n: 1 },
      details: { path: "/tmp/x", lines: [1, 9] },
      terminate: true,
      isError: false,
    });
    expect(JSON.stringify(r.content)).not.toContain("/tmp/x");
  });

  it("should keep explicit content blocks as given", () => {
    const blocks = [
      { type: "image", data: "iVBOR", mimeType: "image/png" },
      { type: "text", text: "a chart" },
    ];
    expect(normalizeResult("t", toolResult({ content: blocks, data: { id: 7 } }))).toMatchObject({
      content: blocks,
      data: { id: 7 },
    });
  });

  it("should carry an error result's flag, message and kind", () => {
    const r = normalizeResult(
      "t",
      toolResult({
        isError: true,
        errorMessage: "not found upstream",
        errorKind: "NOT_FOUND",
        content: [{ type: "text", text: "404" }],
      }),
    );
    expect(r).toMatchObject({
      isError: true,
      errorMessage: "not found upstream",
      errorKind: "NOT_FOUND",
      content: [{ type: "text", text: "404" }],
      terminate: false,
    });
  });

  it("should fill toolName from the tool and pass toolCallId through", () => {
    expect(normalizeResult("fetch_page", toolResult({ toolCallId: "call_1" }))).toMatchObject({
      toolName: "fetch_page",
      toolCallId: "call_1",
      content: [],
    });
  });

  it("should treat a plain object shaped like a result as data, not as a result", () => {
    const r = normalizeResult("t", { content: [], isError: true, terminate: true });
    expect(r).toMatchObject({
      isError: false,
      terminate: false,
      data: { content: [], isError: true, terminate: true },
    });
  });

  it("should keep as data what JSON carries (a Date as its ISO string, undefined keys dropped)", () => {
    const r = normalizeResult("t", { at: new Date(0), gone: undefined, n: 1 });
    expect(r.data).toEqual({ at: "1970-01-01T00:00:00.000Z", n: 1 });
    expect(r.content).toEqual([{ type: "text", text: '{"at":"1970-01-01T00:00:00.000Z","n":1}' }]);
  });

  it.each([
    ["a function", () => 1, "(a function)"],
    ["a symbol", Symbol("s"), "(a symbol)"],
    ["a BigInt", 10n, "BigInt"],
    [
      "a cycle",
      (() => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      })(),
      "circular",
    ],
  ])("should refuse a result that is %s as a non-retryable INTERNAL ToolError", (_label, value, text) => {
    let error: unknown;
    try {
      normalizeResult("t", value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ kind: "INTERNAL", retryable: false });
    expect((error as Error).message).toContain("cannot be encoded as JSON");
    expect((error as Error).message).toContain(text);
  });

  it("should refuse toolResult details that JSON cannot carry, naming details", () => {
    expect(() => normalizeResult("t", toolResult({ details: { n: 10n } }))).toThrow(
      /details cannot be encoded as JSON/,
    );
  });

  it("should refuse a toolResult errorKind outside the closed set", () => {
    expect(() => normalizeResult("t", toolResult({ isError: true, errorKind: "OOPS" as never }))).toThrow(
      /unknown errorKind "OOPS"/,
    );
  });

  it("should not mark a toolResult's copy as enumerable data", () => {
    const init = toolResult({ data: 1 });
    expect(Object.keys(init)).toEqual(["data"]);
  });
});
