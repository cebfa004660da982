import { z } from "zod";
import type { Caller } from "../../auth/roles.ts";
import { ApiError, publicErrorName, ToolError, type Issue } from "../../errors.ts";
import { schemaProblems, validate, type JsonSchema } from "../../tools/json-schema.ts";
import type { AgentRunOptions } from "../agent.ts";
import type { SubAgentSpec } from "../specs.ts";
import { errorOutcome } from "../tools-agent/call-tool.ts";
import type { DoneOutcome } from "../tools-agent/checkpoint.ts";

/**
 * A tool given to a sub-agent as a function, by an in-process caller (docs/agent-stream.md
 * §9.3). It is not a surface entry: it runs in the caller's process with the caller's
 * own authority, outside the dispatch chokepoint (no tier, no retries, no stored run).
 */
export interface LiveTool {
  /** The name the sub-agent's model calls it by; wire-safe. */
  name: string;
  /** What the model reads. */
  description: string;
  /** Its arguments: a zod object or a JSON Schema object. @default an object with no properties */
  input?: z.ZodObject | JsonSchema;
  /**
   * Runs one call with the validated arguments. Contract: a thrown error becomes an error
   * result the model reads (kind from a ToolError, else INTERNAL, message not shown);
   * stop promptly when `signal` fires; the value returned is shown to the model.
   */
  run(args: Record<string, unknown>, ctx: { signal: AbortSignal; caller: Caller }): unknown;
}

/** A live tool checked and ready for a run: its JSON Schema and how to validate arguments. */
export interface PreparedLiveTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  tool: LiveTool;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const LIVE = Symbol("tai42.liveTools");

/** The live tools of a spec: taken by {@link takeLiveTools}, or given directly. */
export function liveToolsOf(spec: SubAgentSpec): LiveTool[] {
  return (spec as { [LIVE]?: LiveTool[] })[LIVE] ?? spec.tools ?? [];
}

/**
 * Separates the live tools of every sub-agent (at any depth) from the JSON options, which
 * are validated and stored; `attach` puts them back on the parsed options under a symbol
 * key, so they reach the agent but never a stored row. A malformed live tool is
 * BAD_USER_INPUT naming it.
 */
export function takeLiveTools(options: AgentRunOptions): { options: AgentRunOptions; attach(parsed: AgentRunOptions): AgentRunOptions } {
  const found = new Map<string, LiveTool[]>();
  const issues: Issue[] = [];
  const strip = (specs: unknown, at: string, key: string): unknown => {
    if (!Array.isArray(specs)) return specs;
    return specs.map((s: unknown, i) => {
      if (!s || typeof s !== "object" || Array.isArray(s)) return s;
      const { tools, subagents, ...rest } = s as SubAgentSpec & Record<string, unknown>;
      const path = `${at}/${i}`;
      if (tools !== undefined) {
        if (!Array.isArray(tools)) issues.push({ path: `${path}/tools`, message: "must be a list of live tools ({ name, description, input?, run })" });
        else {
          tools.forEach((t, j) => issues.push(...liveToolIssues(t, `${path}/tools/${j}`)));
          found.set(`${key}${i}`, tools);
        }
      }
      return subagents === undefined ? rest : { ...rest, subagents: strip(subagents, `${path}/subagents`, `${key}${i}/`) };
    });
  };
  const stripped = options.subagents === undefined ? options : { ...options, subagents: strip(options.subagents, "/subagents", "") as SubAgentSpec[] };
  if (issues.length) throw ApiError.badInput(`invalid live tools: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, issues);
  const put = (specs: SubAgentSpec[] | undefined, key: string): void =>
    specs?.forEach((s, i) => {
      const tools = found.get(`${key}${i}`);
      if (tools) Object.defineProperty(s, LIVE, { value: tools, enumerable: false });
      put(s.subagents, `${key}${i}/`);
    });
  return {
    options: stripped,
    attach(parsed) {
      if (found.size) put(parsed.subagents, "");
      return parsed;
    },
  };
}

function liveToolIssues(t: unknown, path: string): Issue[] {
  const tool = t as Partial<LiveTool> | null;
  if (!tool || typeof tool !== "object") return [{ path, message: "must be a live tool ({ name, description, input?, run })" }];
  const issues: Issue[] = [];
  if (typeof tool.name !== "string" || !NAME.test(tool.name)) issues.push({ path: `${path}/name`, message: "must match ^[A-Za-z0-9_-]{1,64}$" });
  if (typeof tool.description !== "string" || !tool.description.trim()) issues.push({ path: `${path}/description`, message: "must not be empty" });
  if (typeof tool.run !== "function") issues.push({ path: `${path}/run`, message: "must be a function" });
  if (tool.input !== undefined && !(tool.input instanceof z.ZodObject)) issues.push(...schemaProblems(tool.input, `${path}/input`));
  return issues;
}

/** The live tools of a sub-agent as the run offers them; a zod input becomes its JSON Schema. */
export function prepareLiveTools(tools: LiveTool[]): PreparedLiveTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema:
      tool.input instanceof z.ZodObject
        ? (z.toJSONSchema(tool.input, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as JsonSchema)
        : (tool.input ?? { type: "object", properties: {}, additionalProperties: false }),
    tool,
  }));
}

/** Runs one call of a live tool: arguments validated first; every failure is an error result. */
export async function callLiveTool(live: PreparedLiveTool, args: Record<string, unknown>, ctx: { signal: AbortSignal; caller: Caller }): Promise<DoneOutcome> {
  let input = args;
  if (live.tool.input instanceof z.ZodObject) {
    const parsed = live.tool.input.safeParse(args);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.length ? `/${i.path.join("/")}` : "", message: i.message }));
      return errorOutcome("INVALID_INPUT", `invalid input for "${live.name}": ${issues.map((i) => `${i.path || "/"}: ${i.message}`).join("; ")}`, issues);
    }
    input = parsed.data as Record<string, unknown>;
  } else {
    const issues = validate(live.inputSchema, args);
    if (issues.length) return errorOutcome("INVALID_INPUT", `invalid input for "${live.name}": ${issues.map((i) => `${i.path || "/"}: ${i.message}`).join("; ")}`, issues);
  }
  try {
    const value = await live.tool.run(input, ctx);
    const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
    return { status: "done", isError: false, result: value ?? null, modelOutput: { type: "text", value: text }, terminate: false, value: value ?? null };
  } catch (e) {
    if (e instanceof ToolError) return errorOutcome(e.kind, e.message);
    return errorOutcome("INTERNAL", `the live tool "${live.name}" failed (${publicErrorName(e)})`);
  }
}
