import type { Issue } from "../../errors.ts";
import { park } from "../../interactions/park.ts";
import type { SurfaceEntry } from "../../registry/surface-entry.ts";
import { schemaProblems, type JsonSchema } from "../../tools/json-schema.ts";

export const ASK_CALLER = "ask_caller";

export const ASK_CALLER_DESCRIPTION =
  "Ask the person who started this run a question and wait for the answer. Use it only when you cannot continue without information they have.";

/** What the model passes to ask_caller. */
export const ASK_CALLER_INPUT: JsonSchema = {
  type: "object",
  properties: {
    question: { type: "string", minLength: 1, description: "The question, in one or two sentences." },
    answerFormat: { type: "object", description: "Optional JSON Schema the answer must match." },
    expiresInSeconds: {
      type: "number",
      exclusiveMinimum: 0,
      description: "Optional: after this many seconds the question expires unanswered.",
    },
  },
  required: ["question"],
  additionalProperties: false,
};

interface AskInput {
  question: string;
  answerFormat?: JsonSchema;
  expiresInSeconds?: number;
}

/**
 * The built-in `ask_caller` tool (docs/agent-stream.md §8): a pausing tool that parks its
 * run on one interaction addressed to the caller (`to: "caller"`). It is registered off
 * the API (`listed: false`): agents reach it through the chokepoint's `agent` door, so
 * each ask is a parked tool run and an interaction like any park; its output, once
 * answered, is the answer itself.
 */
export function askCallerEntry(): SurfaceEntry {
  return {
    name: ASK_CALLER,
    description: ASK_CALLER_DESCRIPTION,
    origin: "TOOL",
    tier: "read",
    inputSchema: ASK_CALLER_INPUT,
    executionMode: "parallel",
    pauses: true,
    extensionStack: [],
    timeoutSeconds: 30,
    listed: false,
    policyChain: [ASK_CALLER],
    prepare: (input) => {
      const issues: Issue[] = [];
      if (typeof input.question !== "string" || !input.question.trim())
        issues.push({ path: "/question", message: "must be a non-empty string" });
      if (input.answerFormat !== undefined) issues.push(...schemaProblems(input.answerFormat, "/answerFormat"));
      return issues.length ? { ok: false, issues } : { ok: true, value: input };
    },
    invoke: async (input) => {
      const { question, answerFormat, expiresInSeconds } = input as AskInput;
      return park({
        interactions: [
          {
            question,
            to: "caller",
            ...(answerFormat ? { answerFormat } : {}),
            ...(expiresInSeconds ? { expiresInSeconds } : {}),
          },
        ],
      });
    },
    module: "builtin",
  };
}
