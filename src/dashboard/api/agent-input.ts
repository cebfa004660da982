import type { AgentRunInput } from "tai42/client";
import type { AgentInfo } from "./agents.ts";

/**
 * The run options a JSON caller names in `AgentRunInput` (docs/run-options.md §1): every field but `agent` and `extra`.
 */
export const RUN_INPUT_FIELDS = [
  "toolNames",
  "presets",
  "subagents",
  "systemMessage",
  "userMessage",
  "variables",
  "responseFormat",
  "strategy",
  "interruptOn",
  "skills",
  "inlineSkills",
  "recursionLimit",
  "threadId",
  "resume",
  "resumeCheckpointId",
  "llmProvider",
  "checkpointProvider",
  "storeProvider",
  "llmKwargs",
] as const satisfies readonly Exclude<keyof AgentRunInput, "agent" | "extra">[];
// A field AgentRunInput gains and the list misses fails the type check here.
type Unlisted = Exclude<keyof AgentRunInput, "agent" | "extra" | (typeof RUN_INPUT_FIELDS)[number]>;
export const RUN_INPUT_FIELDS_COMPLETE: [Unlisted] extends [never] ? true : Unlisted = true;

/** Kept by the conversation, never drawn: the thread and what a resume decides. */
const SESSION_FIELDS: readonly string[] = ["threadId", "resume", "resumeCheckpointId"];

/**
 * The authoring controls the Studio draws for a specRunnable agent, each only when its input schema advertises the
 * field.
 */
export interface StudioControls {
  /** The tool picks. */
  toolNames: boolean;
  /** The approval gate beside each picked tool (needs the tool picks). */
  interruptOn: boolean;
  systemMessage: boolean;
}

/** What the Studio draws for one agent, from its declaration alone (seed 002: "spec_runnable"). */
export interface StudioPlan {
  /** The message box: the agent's input has `userMessage`. */
  message: boolean;
  controls: StudioControls;
  /**
   * The agent's declared input that no control and no message box takes, as a JSON Schema
   * for the schema form; null when nothing is left. For a specRunnable agent these are
   * honoured options beside the controls; for any other agent, its whole input.
   */
  form: Record<string, unknown> | null;
  /** How many fields `form` draws. */
  formFields: number;
}

const propertiesOf = (schema: Record<string, unknown>): Record<string, unknown> => {
  const p = schema.properties;
  return p && typeof p === "object" && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
};

/**
 * Reads what the Studio offers for `agent`. A specRunnable agent advertises exactly the
 * composable fields its run honours, so each control is drawn when its field is in the
 * input schema; an agent that is not specRunnable is not composable from a UI, so it
 * gets no control and its whole input is drawn as a form. Either way the message box
 * stands for `userMessage` when the schema has it, and the thread and resume fields stay
 * the conversation's own.
 */
export function studioPlan(agent: Pick<AgentInfo, "specRunnable" | "inputSchema">): StudioPlan {
  const props = propertiesOf(agent.inputSchema);
  const has = (f: string) => Object.hasOwn(props, f);
  const composable = agent.specRunnable;
  const controls: StudioControls = {
    toolNames: composable && has("toolNames"),
    interruptOn: composable && has("toolNames") && has("interruptOn"),
    systemMessage: composable && has("systemMessage"),
  };
  const message = has("userMessage");
  const taken = new Set<string>([
    ...SESSION_FIELDS,
    ...(message ? ["userMessage"] : []),
    ...Object.entries(controls).flatMap(([f, on]) => (on ? [f] : [])),
  ]);
  const drawn = Object.keys(props).filter((f) => !taken.has(f));
  if (!drawn.length) return { message, controls, form: null, formFields: 0 };
  const required = Array.isArray(agent.inputSchema.required)
    ? (agent.inputSchema.required as string[]).filter((f) => drawn.includes(f))
    : [];
  const form: Record<string, unknown> = {
    ...agent.inputSchema,
    properties: Object.fromEntries(drawn.map((f) => [f, props[f]])),
    required,
  };
  if (!required.length) delete form.required;
  return { message, controls, form, formFields: drawn.length };
}

/** The setup a message runs with: the controls' values (only those the plan draws are sent). */
export interface ControlValues {
  toolNames: string[];
  /** Tools whose calls wait for an approval (interruptOn). */
  gated: string[];
  systemMessage: string;
}

/**
 * The start of a run of `agent`: its own fields from the form (a run option by its name,
 * any other field under `extra`, where the server merges it), the message when the agent
 * takes one, and the controls the plan draws. Nothing the agent does not declare is sent.
 */
export function runInput(
  agent: Pick<AgentInfo, "name">,
  plan: StudioPlan,
  controls: ControlValues,
  message: string,
  fields: Record<string, unknown>,
): AgentRunInput {
  const input: Record<string, unknown> = { agent: agent.name };
  const extra: Record<string, unknown> = {};
  const named: readonly string[] = RUN_INPUT_FIELDS;
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || !plan.form || !Object.hasOwn(propertiesOf(plan.form), k)) continue;
    if (named.includes(k)) input[k] = v;
    else extra[k] = v;
  }
  if (Object.keys(extra).length) input.extra = extra;
  if (plan.message && message.trim()) input.userMessage = message.trim();
  if (plan.controls.toolNames) input.toolNames = controls.toolNames;
  const gated = controls.gated.filter((t) => controls.toolNames.includes(t));
  if (plan.controls.interruptOn && gated.length)
    input.interruptOn = Object.fromEntries(gated.map((t) => [t, { allowedDecisions: ["approve", "edit", "reject"] }]));
  if (plan.controls.systemMessage && controls.systemMessage.trim()) input.systemMessage = controls.systemMessage.trim();
  return input as AgentRunInput;
}

/** A short line for the fields a run started with ("city: Lyon · nights: 3"), shown as its prompt. */
export function fieldsLine(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" · ");
}
