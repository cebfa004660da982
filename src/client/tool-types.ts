import type { ToolRun } from "./documents.ts";
import type { Undefinable } from "./graphql.ts";

/**
 * The types of one tool, as `tai types` writes them: what its input is, and what its
 * result's `data` is (`unknown` for a tool without an output schema).
 */
export interface ToolTypes {
  input: unknown;
  output: unknown;
}

/**
 * The tool map of a client created without one: any tool name, any JSON object as input,
 * and `data` untyped. `createTaiClient<TaiTools>(…)` with the map `tai types` wrote
 * replaces it.
 */
export type UntypedTools = Record<string, { input: Record<string, unknown>; output: unknown }>;

/**
 * A map from tool names to their {@link ToolTypes}. An interface (what `tai types`
 * writes) fits it without an index signature.
 */
export type ToolMap<Tools> = { [Name in keyof Tools]: ToolTypes };

/** The tool names of a map: the keys `dispatch` takes. */
export type ToolName<Tools> = keyof Tools & string;

/**
 * What `dispatch` takes as tool `Name`'s input: its input type, where an optional property
 * may also be `undefined` (under `exactOptionalPropertyTypes`; the key is left out of the JSON sent).
 */
export type ToolInputArg<Tools, Name extends ToolName<Tools>> = Undefinable<ToolInput<Tools, Name>>;

/** The input type of tool `Name`. */
export type ToolInput<Tools, Name extends ToolName<Tools>> = Tools[Name] extends { input: infer Input } ? Input : never;

/** The output type of tool `Name` (`unknown` when it has no output schema). */
export type ToolOutput<Tools, Name extends ToolName<Tools>> = Tools[Name] extends { output: infer Output }
  ? Output
  : unknown;

/**
 * A run whose `data` is typed: the tool's output, or null when the run produced none (it
 * failed, was parked or queued, or answered with content only). For an untyped output it
 * is {@link ToolRun} itself.
 */
export type TypedToolRun<Output> = unknown extends Output ? ToolRun : Omit<ToolRun, "data"> & { data: Output | null };
