import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { z } from "zod";

/**
 * Requests whose params the MCP schema refuses, sent raw through the SDK's own Client (its
 * typed helpers would not build them), each with the argument its refusal must name.
 */
export const INVALID_REQUESTS = [
  { method: "tools/call", params: { name: 5, arguments: {} }, names: "params.name: expected string, received number" },
  {
    method: "tools/call",
    params: { name: "echo", arguments: "x" },
    names: "params.arguments: expected record, received string",
  },
  { method: "tools/call", params: { arguments: {} }, names: "params.name: expected string" },
  { method: "tools/list", params: { cursor: 5 }, names: "params.cursor: expected string, received number" },
  {
    method: "initialize",
    params: { protocolVersion: 5, capabilities: {}, clientInfo: { name: "c", version: "1" } },
    names: "params.protocolVersion: expected string, received number",
  },
] as const;

/** The error the server answers `request` with (it must refuse it). */
export async function refusalOf(client: Client, request: { method: string; params: unknown }): Promise<McpError> {
  try {
    await client.request(request as never, z.looseObject({}));
  } catch (e) {
    if (e instanceof McpError) return e;
    throw e;
  }
  throw new Error(`${request.method} was not refused`);
}

/**
 * What every refusal of an invalid request must be: -32602 with a one-line message naming the argument, no validator
 * dump.
 */
export function expectReadableInvalidParams(error: McpError, method: string, names: string): void {
  expect(error.code).toBe(ErrorCode.InvalidParams);
  expect(error.message).toContain(`invalid ${method} request: ${names}`);
  expect(error.message).not.toMatch(/[[{]\s*"(code|expected|path)"/);
  expect(error.message).not.toContain("\n");
}
