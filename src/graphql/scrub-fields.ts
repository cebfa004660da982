import {
  defaultFieldResolver,
  getNamedType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLSchema,
} from "graphql";
import type { GraphQLContext } from "./context.ts";

/** The scalars whose every field is a value: JSON documents a caller, a tool or a model wrote. */
const VALUE_SCALARS: ReadonlySet<string> = new Set(["JSON", "JSONObject"]);

/**
 * JSON fields, by name, that are structure: JSON Schemas the registry or a tool declared
 * (a tool's input and output schema, an extension's settings schema, an answer format, a
 * response format). A secret equal to a schema word ("object", "string", an enum member)
 * must not rewrite them: a client validating against `"type": "[redacted]"` breaks.
 */
export const STRUCTURE_JSON_FIELDS: ReadonlySet<string> = new Set([
  "inputSchema",
  "outputSchema",
  "configSchema",
  "answerFormat",
  "responseFormat",
]);

/**
 * `String` fields, by name, that carry free text (docs/security-model.md §3 "Which fields
 * are values"): messages, text content, questions, reasons, descriptions, instructions.
 */
export const VALUE_TEXT_FIELDS: ReadonlySet<string> = new Set([
  "errorMessage",
  "text",
  "question",
  "message",
  "reason",
  "content",
  "description",
  "instructions",
  "template",
  "promptGuidelines",
  "promptSnippet",
  "label",
  // A content block's MIME type: the tool body writes it.
  "mimeType",
  // Connectors (docs/connectors.md §12): an upstream's title, failure messages.
  "title",
  "refreshError",
  "lastError",
  // Why a name gets its attempts, in words (it names entries, like a description).
  "retryExplained",
  // The message an agent run started with (an excerpt of it): the caller wrote it.
  "userMessage",
]);

/**
 * `String` fields, by name, that are structure: names the registry or a caller gave,
 * discriminants, ids the server made, cursors and MIME types. Never rewritten.
 */
export const STRUCTURE_TEXT_FIELDS: ReadonlySet<string> = new Set([
  "name",
  "tool",
  "baseTool",
  "agent",
  "type",
  "cursor",
  "startCursor",
  "endCursor",
  "threadId",
  "interruptId",
  "resumedInterruptId",
  "callId",
  "interactionIds",
  "callerInteractionIds",
  "callbackUrl",
  "module",
  // An API key's first 8 characters (`tai_` and 4 of its random part): the server made it, to recognise the key.
  "prefix",
  // Flow control (docs/flow-control.md): a cap's scope and a rate's per, words of the declaration.
  "scope",
  "per",
  "tools",
  "extensionStack",
  "declaredOn",
  "keyName",
  "model",
  "source",
  "presetBakeableFields",
  // Connectors (docs/connectors.md §12): names the ADMIN or the upstream gave, the kind, the fields a change touched.
  "connector",
  "kind",
  "upstreamName",
  "added",
  "removed",
  "fields",
  // Schedules (docs/run-lifecycle.md §11.7): the cron expression, its IANA time zone, the key name it runs as.
  "cron",
  "timeZone",
  "callerKey",
  // An agent run's tools and provider (AgentRun.toolNames, llmProvider): registered names the caller picked.
  "toolNames",
  "llmProvider",
  // The new API key itself: a token the server made, shown once to the ADMIN who asked.
  "createApiKey",
]);

/**
 * Whether a field's result is a value to scrub: a JSON field, or a `String` field not
 * known as structure (a new one is scrubbed until it is classified; `test/graphql/value-fields.test.ts`
 * fails until it is). IDs, enums, DateTime, numbers and booleans never are.
 */
export function isValueField(field: GraphQLField<unknown, unknown>): boolean {
  const type = getNamedType(field.type);
  if (!isScalarType(type)) return false;
  if (VALUE_SCALARS.has(type.name)) return !STRUCTURE_JSON_FIELDS.has(field.name);
  return type.name === "String" && !STRUCTURE_TEXT_FIELDS.has(field.name);
}

/**
 * The serving boundary for data (docs/security-model.md §3): every value field of every
 * object type resolves scrubbed of the runtime's known secrets, in queries, mutations and
 * subscription events alike (each event's fields resolve through these resolvers).
 * Structure — ids, enums, names, times — leaves as it is, whatever secret is known.
 */
export function scrubValueFields(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      if (!isValueField(field)) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context: GraphQLContext, info) => {
        const out = resolve(source, args, context, info);
        const scrub = (v: unknown) => (v === null || v === undefined ? v : context.runtime.secrets.scrub(v));
        return out instanceof Promise ? out.then(scrub) : scrub(out);
      };
    }
  }
  return schema;
}
