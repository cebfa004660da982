import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { InteractionRecord } from "../interactions/park.ts";
import type { JsonSchema } from "../tools/json-schema.ts";

type FormSchema = ElicitRequestFormParams["requestedSchema"];
type Field = FormSchema["properties"][string];

/** One interaction as an MCP form, and how the form's answer becomes the interaction's. */
export interface InteractionForm {
  params: ElicitRequestFormParams;
  /** The interaction's answer from the accepted form's content. */
  answerOf(content: ElicitResult["content"]): unknown;
}

/** Keys of a JSON Schema property kept in a form field, by the field's type (MCP allows no others). */
const FIELD_KEYS: Record<string, readonly string[]> = {
  string: ["title", "description", "minLength", "maxLength", "format", "default", "enum", "enumNames", "oneOf"],
  number: ["title", "description", "minimum", "maximum", "default"],
  integer: ["title", "description", "minimum", "maximum", "default"],
  boolean: ["title", "description", "default"],
};
const FORMATS = new Set(["email", "uri", "date", "date-time"]);

/**
 * Interactions a person answers through the MCP client: those for the user or the caller,
 * except the ones answered by an external system through a callback URL.
 */
export function isElicitable(i: InteractionRecord): boolean {
  return i.status === "PENDING" && !i.callback;
}

/**
 * The form for an interaction (docs/mcp.md, "Parks as elicitation"). MCP forms are flat
 * objects of primitive fields:
 * - an `answerFormat` that is such an object is the form itself, and the answer is the form;
 * - a primitive `answerFormat` (string, number, integer, boolean, string enum) is one
 *   field, `answer`, and the answer is that field;
 * - anything else (nested, arrays, no format at all) is one text field, `answer`, read
 *   as JSON when it parses and as the text itself otherwise.
 * The answer is validated against the real `answerFormat` when it is stored.
 */
export function interactionForm(i: InteractionRecord, refusal?: string): InteractionForm {
  const message = refusal ? `${i.question}\n\n(${refusal})` : i.question;
  const format = i.answerFormat;
  const flat = format && format.type === "object" ? flatFields(format) : null;
  if (flat) return { params: { mode: "form", message, requestedSchema: flat }, answerOf: (content) => content ?? {} };
  const single = format ? fieldOf(format) : null;
  const field: Field = single ?? {
    type: "string",
    title: "Answer",
    description: format
      ? `A JSON value matching ${JSON.stringify(format).slice(0, 500)}`
      : "Any JSON value, or plain text",
  };
  return {
    params: {
      mode: "form",
      message,
      requestedSchema: { type: "object", properties: { answer: field }, required: ["answer"] },
    },
    answerOf: (content) => {
      const value = content?.answer;
      if (single || typeof value !== "string") return value;
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    },
  };
}

/** An object schema whose properties are all primitive fields, as a form; null otherwise. */
function flatFields(schema: JsonSchema): FormSchema | null {
  const props = schema.properties;
  if (!props || typeof props !== "object" || !Object.keys(props).length) return null;
  const properties: FormSchema["properties"] = {};
  for (const [name, sub] of Object.entries(props as Record<string, JsonSchema>)) {
    const field = fieldOf(sub);
    if (!field) return null;
    properties[name] = field;
  }
  const required = Array.isArray(schema.required)
    ? (schema.required as unknown[]).filter((r): r is string => typeof r === "string")
    : undefined;
  return { type: "object", properties, ...(required?.length ? { required } : {}) };
}

/** A primitive JSON Schema as a form field, keeping only what MCP forms allow; null when it is not primitive. */
function fieldOf(schema: JsonSchema): Field | null {
  const type = schema.type;
  if (typeof type !== "string" || !(type in FIELD_KEYS)) return null;
  if (type === "string" && Array.isArray(schema.enum) && !schema.enum.every((v) => typeof v === "string")) return null;
  const field: Record<string, unknown> = { type };
  for (const k of FIELD_KEYS[type]) if (schema[k] !== undefined) field[k] = schema[k];
  if (typeof field.format === "string" && !FORMATS.has(field.format)) delete field.format;
  return field as Field;
}
