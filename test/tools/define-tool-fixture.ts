import { expect } from "vitest";
import { DefinitionError } from "../../src/definition-error.ts";
import type { DefineToolFields, DefineToolRule } from "../../src/tools/define-tool.ts";

/** The shared setup of the tool-definition tests (define-tool.test.ts, app-tool-zod.test.ts). */

/** Valid defineTool fields for a word counter, with `over` laid on top. */
export const fields = (over: Record<string, unknown> = {}): DefineToolFields =>
  ({
    name: "word_count",
    label: "Word count",
    description: "Count the words in a string.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text }: { text: string }) => ({ words: text.split(/\s+/).length }),
    ...over,
  }) as unknown as DefineToolFields;

export /** Asserts `fn` throws a DefinitionError of rule `tool.<rule>` and returns its message. */
function refused(rule: DefineToolRule, fn: () => unknown): string {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error, "expected a DefinitionError").toBeInstanceOf(DefinitionError);
  expect((error as DefinitionError).rule).toBe(`tool.${rule}`);
  expect((error as Error).message).toContain(`[${rule}]`);
  return (error as Error).message;
}
