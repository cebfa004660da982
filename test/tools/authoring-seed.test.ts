import { afterEach, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import * as tai42 from "../../src/index.ts";
import { defineTool, ToolError, toolResult, type RetryBackoff, type RetryPolicy } from "../../src/index.ts";
import { normalizeResult } from "../../src/tools/result.ts";
import { z } from "zod";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const object = { type: "object", properties: {} };

describe("AgentToolResult.from_error: 'Create a failure result.' (toolResult.fromError)", () => {
  it("should build a failure result from (tool_name, error_message, tool_call_id): isError, the message for the model and as errorMessage", () => {
    const result = normalizeResult(
      "fallback",
      toolResult.fromError("fetch_page", "the host refused the connection", "call_7"),
    );
    expect(result).toEqual({
      content: [{ type: "text", text: "the host refused the connection" }],
      isError: true,
      errorMessage: "the host refused the connection",
      errorKind: undefined,
      terminate: false,
      toolName: "fetch_page",
      toolCallId: "call_7",
      data: undefined,
      details: undefined,
    });
  });

  it("should take the message of an Error, and keep a ToolError's kind", () => {
    expect(normalizeResult("t", toolResult.fromError("t", new Error("disk full")))).toMatchObject({
      isError: true,
      errorMessage: "disk full",
      content: [{ type: "text", text: "disk full" }],
    });
    expect(
      normalizeResult("t", toolResult.fromError("t", new ToolError("slow down", { kind: "RATE_LIMITED" }))),
    ).toMatchObject({
      errorKind: "RATE_LIMITED",
      errorMessage: "slow down",
    });
  });

  describe("returned from a body", () => {
    let rt: TestRuntime | undefined;
    afterEach(async () => {
      await rt?.dispose();
      rt = undefined;
    });

    it("should fail the run with that message and kind, stored, and not retried", async () => {
      const app = new App();
      let calls = 0;
      app.tool(
        {
          name: "flaky",
          description: "Fails as data.",
          input: z.object({}),
          retry: { maxAttempts: 3, idempotent: true, retryable: true, backoff: { initialSeconds: 0 } },
        },
        () => {
          calls++;
          return toolResult.fromError("flaky", new ToolError("upstream said no", { kind: "UNAVAILABLE" }));
        },
      );
      rt = await testRuntime({ app });
      const run = await rt.dispatcher.run({ tool: "flaky", input: {}, caller: as("USER"), door: "runtime" });
      expect(run).toMatchObject({
        status: "FAILED",
        isError: true,
        errorKind: "UNAVAILABLE",
        errorMessage: "upstream said no",
        content: [{ type: "text", text: "upstream said no" }],
      });
      expect(calls).toBe(1);
      expect(await rt.runs.get(run.id)).toMatchObject({
        status: "FAILED",
        errorMessage: "upstream said no",
        attempts: [{ number: 1 }],
      });
    });
  });
});

describe("ToolDefinition.prompt_snippet / prompt_guidelines: accepted on a declaration and checked", () => {
  it("should keep a one-line snippet and a list of guidelines, trimmed, on the definition", () => {
    const def = defineTool({
      name: "grep",
      description: "Search files.",
      parameters: object,
      execute: () => "",
      promptSnippet: " Search file contents by regex ",
      promptGuidelines: ["Prefer grep over reading whole files. "],
    });
    expect(def.promptSnippet).toBe("Search file contents by regex");
    expect(def.promptGuidelines).toEqual(["Prefer grep over reading whole files."]);
    const zod = new App().tool(
      { name: "z", description: "Z.", input: z.object({}), promptSnippet: "Zed", promptGuidelines: ["Use z last."] },
      () => "",
    );
    expect([zod.promptSnippet, zod.promptGuidelines]).toEqual(["Zed", ["Use z last."]]);
  });

  it("should refuse a snippet that is not one non-empty line and guidelines that are not non-empty strings, naming the field", () => {
    const base = { name: "t", description: "T.", parameters: object, execute: () => "" };
    expect(() => defineTool({ ...base, promptSnippet: "two\nlines" })).toThrow(
      /\[field-type\]: "t": promptSnippet must be one non-empty line/,
    );
    expect(() => defineTool({ ...base, promptSnippet: 3 as never })).toThrow(
      /promptSnippet must be one non-empty line/,
    );
    expect(() => defineTool({ ...base, promptGuidelines: "be nice" as never })).toThrow(
      /promptGuidelines must be a list of non-empty strings/,
    );
    expect(() => defineTool({ ...base, promptGuidelines: ["ok", " "] })).toThrow(
      /promptGuidelines must be a list of non-empty strings/,
    );
  });
});

describe("ToolRetryPolicy, ToolRetryBackoff, and the retryable-kind constants are exported from the package entry", () => {
  it("should export the resolved policy and backoff types with their defaults and the transient kinds", () => {
    const backoff: RetryBackoff = tai42.DEFAULT_BACKOFF;
    const policy: RetryPolicy = {
      maxAttempts: 2,
      idempotent: true,
      retryableKinds: tai42.DEFAULT_TRANSIENT_KINDS,
      backoff,
    };
    expect(backoff).toEqual({ initialSeconds: 0.5, multiplier: 2, capSeconds: 30 });
    expect(policy.retryableKinds).toEqual(["TIMEOUT", "RATE_LIMITED", "UNAVAILABLE", "NETWORK"]);
    expect(typeof tai42.toolResult.fromError).toBe("function");
  });
});
