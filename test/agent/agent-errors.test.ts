import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { invokeAsTool } from "../../src/agent/agent-as-tool.ts";
import { classifyAgentError } from "../../src/agent/agent-errors.ts";
import type { AgentClass } from "../../src/agent/agent.ts";
import { ApiError, KIND_OF_API_CODE, ToolError, type ApiErrorCode } from "../../src/errors.ts";
import type { ToolContext } from "../../src/tools/definition.ts";

const CODES = Object.keys(KIND_OF_API_CODE) as ApiErrorCode[];

describe("classifying what an agent threw", () => {
  it("should keep the kind and message of a ToolError the agent raised on purpose", () => {
    expect(classifyAgentError(new ToolError("too many model calls", { kind: "TIMEOUT" }), false)).toEqual({
      kind: "TIMEOUT",
      message: "too many model calls",
      unexpected: false,
    });
  });

  it("should call any failure of an aborted run CANCELLED", () => {
    expect(classifyAgentError(new ToolError("boom", { kind: "UPSTREAM" }), true)).toEqual({
      kind: "CANCELLED",
      message: "the agent run was cancelled",
      unexpected: false,
    });
  });

  it.each(CODES)("should read a refused request with code %s through the one API code table", (code) => {
    expect(classifyAgentError(new ApiError(code, "refused"), false)).toEqual({
      kind: KIND_OF_API_CODE[code],
      message: "refused",
      unexpected: false,
    });
  });

  it("should map the refusals an agent meets to the kinds a run reports", () => {
    expect(KIND_OF_API_CODE).toMatchObject({
      BAD_USER_INPUT: "INVALID_INPUT",
      FORBIDDEN: "PERMISSION_DENIED",
      NOT_FOUND: "NOT_FOUND",
      CONFLICT: "CONFLICT",
      UNAVAILABLE: "UNAVAILABLE",
    });
  });

  it("should report a provider's HTTP 429 as RATE_LIMITED with the provider's own message", () => {
    const error = new APICallError({
      message: "Too Many Requests",
      url: "https://llm.example/v1",
      requestBodyValues: {},
      statusCode: 429,
      responseBody: JSON.stringify({ error: { message: "slow down" } }),
    });
    expect(classifyAgentError(error, false)).toEqual({
      kind: "RATE_LIMITED",
      message: "the LLM provider failed: HTTP 429 — slow down",
      unexpected: false,
    });
  });

  it("should keep only the class name of an unexpected error and flag it for the log", () => {
    class SecretLeak extends Error {}
    const c = classifyAgentError(new SecretLeak("password=hunter2"), false);
    expect(c).toEqual({ kind: "INTERNAL", message: "the agent failed unexpectedly (Error)", unexpected: true });
  });
});

describe("an agent dispatched as a tool", () => {
  const ctx = { caller: { role: "USER" }, signal: new AbortController().signal } as unknown as ToolContext;
  const cls = { toolName: "helper", fromToolInput: () => ({}) } as unknown as AgentClass;

  it.each(CODES)(
    "should fail with the table's kind, never retried, when its start is refused with %s",
    async (code) => {
      const agents = {
        start: () => Promise.reject(new ApiError(code, "no start")),
        awaitEnd: () => Promise.reject(new Error("not reached")),
        cancel: () => {},
      };
      const error = await invokeAsTool(agents as never, cls, {}, ctx).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ToolError);
      expect(error).toMatchObject({ message: "no start", kind: KIND_OF_API_CODE[code], retryable: false });
    },
  );
});
