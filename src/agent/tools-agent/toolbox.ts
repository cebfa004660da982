import { isRedacted } from "../../auth/tiers.ts";
import type { Issue } from "../../errors.ts";
import { derivePresetSchema } from "../../registry/entries/preset-entry.ts";
import { hasMarker } from "../../secrets/markers.ts";
import { bakedIssues } from "../../presets/baked-issues.ts";
import type { Surface } from "../../registry/surface.ts";
import type { JsonSchema } from "../../tools/json-schema.ts";
import type { PresetSpec } from "../specs.ts";
import { ASK_CALLER, ASK_CALLER_DESCRIPTION, ASK_CALLER_INPUT } from "./ask-caller.ts";
import type { ToolSpec } from "./loop-types.ts";

/** The built-in tool through which the model asks its caller a question (→ AsksFinal). */
export function askCallerSpec(): ToolSpec {
  return {
    kind: "ask",
    name: ASK_CALLER,
    description: ASK_CALLER_DESCRIPTION,
    inputSchema: ASK_CALLER_INPUT,
    executionMode: "parallel",
    redacted: false,
  };
}

/**
 * Registered entries named in `toolNames`, curated ones included (an agent dispatches a tool
 * kept off the API like any other; its calls run through the chokepoint's in-process `agent`
 * door, where tiers still decide). Every unknown name is an issue. A name given twice is
 * one tool (the seed's "same name = same tool"): it is offered once.
 */
export function surfaceSpecs(surface: Surface, names: string[], path: string, issues: Issue[]): ToolSpec[] {
  const out: ToolSpec[] = [];
  const named = new Set<string>();
  names.forEach((name, i) => {
    if (named.has(name)) return;
    named.add(name);
    const entry = surface.base(name);
    if (!entry) return void issues.push({ path: `${path}/${i}`, message: `no tool named "${name}" is registered` });
    const { promptSnippet, promptGuidelines } = entry;
    out.push({
      kind: "surface",
      name,
      description: entry.description,
      inputSchema: entry.inputSchema,
      executionMode: entry.executionMode,
      redacted: isRedacted(entry.tier),
      promptSnippet,
      promptGuidelines,
    });
  });
  return out;
}

/**
 * Inline presets: the base must be registered (curated ones included, as for stored presets),
 * every baked key one a stored preset could bake (a real input property, bakeable on an
 * agent, not already baked) whose value validates, and no `!ENV` marker (a caller must not
 * read the server's env).
 */
export function presetSpecs(surface: Surface, presets: PresetSpec[], path: string, issues: Issue[]): ToolSpec[] {
  const out: ToolSpec[] = [];
  presets.forEach((p, i) => {
    const at = `${path}/${i}`;
    const base = surface.base(p.baseTool);
    if (!base)
      return void issues.push({ path: `${at}/baseTool`, message: `no tool named "${p.baseTool}" is registered` });
    const props = base.inputSchema.properties ?? {};
    const before = issues.length;
    // A stored preset's rules (presets/baked-issues.ts), and no `!ENV` marker at all.
    const markers = Object.keys(p.fixedKwargs).filter(
      (key) => Object.hasOwn(props, key) && hasMarker(p.fixedKwargs[key]),
    );
    for (const key of markers)
      issues.push({
        path: `${at}/fixedKwargs/${key}`,
        message: "!ENV markers are not allowed in inline presets; store the preset instead",
      });
    const rest = Object.fromEntries(Object.entries(p.fixedKwargs).filter(([key]) => !markers.includes(key)));
    for (const issue of bakedIssues(base, rest)) issues.push({ path: at + issue.path, message: issue.message });
    if (issues.length > before) return;
    out.push({
      kind: "preset",
      name: p.name,
      description: p.description,
      inputSchema: derivePresetSchema(base.inputSchema, Object.keys(p.fixedKwargs)),
      executionMode: base.executionMode,
      redacted: isRedacted(base.tier),
      baseTool: base.name,
      fixedKwargs: p.fixedKwargs,
    });
  });
  return out;
}

/** Every tool name of a run must be distinct: the model calls tools by name. */
export function duplicateIssues(tools: ToolSpec[], path: string): Issue[] {
  const seen = new Set<string>();
  const issues: Issue[] = [];
  for (const t of tools) {
    if (seen.has(t.name))
      issues.push({
        path,
        message: `the tool name "${t.name}" is used twice in this run (tool, preset, sub-agent or ask_caller)`,
      });
    seen.add(t.name);
  }
  return issues;
}

/** The input every sub-agent tool takes. */
export const SUBAGENT_INPUT: JsonSchema = {
  type: "object",
  properties: {
    task: {
      type: "string",
      minLength: 1,
      description: "What the sub-agent should do, with everything it needs to know.",
    },
  },
  required: ["task"],
  additionalProperties: false,
};
