import { isDeepStrictEqual } from "node:util";
import { DefinitionError } from "../../definition-error.ts";
import { describeIssues, type Issue } from "../../errors.ts";
import type { BranchTool, ExtensionDefinition } from "../../extensions/extension.ts";
import type { ComboItem } from "../../manifests/manifest.ts";
import type { Secrets } from "../../secrets/secrets.ts";
import { schemaProblems, validate } from "../../tools/json-schema.ts";
import type { SurfaceEntry } from "../surface-entry.ts";
import { preparedForBase } from "./prepare-input.ts";

/** The rule a combo that cannot bind breaks (a {@link DefinitionError}). */
export const BIND_RULE = "branch.bind";

/**
 * A combo that cannot bind: a {@link DefinitionError} of rule `branch.bind` whose message
 * names the extension and the tool, and whose issues sit at the item's index in the combo
 * (`/<k>`, or `/<k>/config…` for a refused setting).
 */
function bindRefusal(
  extension: string,
  tool: string,
  at: number,
  reason: string,
  issues: Issue[] = [{ path: "", message: reason }],
): DefinitionError {
  return new DefinitionError(BIND_RULE, `extension "${extension}" on tool "${tool}": ${reason}`, {
    subject: `extension "${extension}" on tool "${tool}"`,
    issues: issues.map((i) => ({ path: `/${at}${i.path}`, message: i.message })),
  });
}

export const itemName = (i: ComboItem) => (typeof i === "string" ? i : i.name);

/** The branch name a combo binds: `<tool>_<a>_<b>`. */
export function branchName(tool: string, combo: ComboItem[]): string {
  return [tool, ...combo.map(itemName)].join("_");
}

/** The layer every branch starts from: the base entry's own body, input prepared as it expects. */
function baseLayer(base: SurfaceEntry): BranchTool {
  return {
    name: base.name,
    label: base.label,
    description: base.description,
    tier: base.tier,
    inputSchema: base.inputSchema,
    outputSchema: base.outputSchema,
    executionMode: base.executionMode,
    timeoutSeconds: base.timeoutSeconds,
    module: base.module,
    promptSnippet: base.promptSnippet,
    promptGuidelines: base.promptGuidelines,
    run: async (input, ctx) => {
      const prepared = preparedForBase(
        base,
        input,
        (r) => `invalid input for "${base.name}": ${describeIssues(r.issues)}`,
      );
      return base.invoke(prepared, ctx);
    },
    resume: base.resume ? (state, answers, ctx) => base.resume!(state, answers, ctx) : undefined,
  };
}

/** Where a combo item binds: the extension's name, the base tool's name and the item's index in the combo. */
interface BindSite {
  name: string;
  tool: string;
  at: number;
}

const refuse = (site: BindSite, reason: string, issues?: Issue[]) =>
  bindRefusal(site.name, site.tool, site.at, reason, issues);

/** The item's settings, `!ENV` markers resolved and checked against the extension's schema (none if it has none). */
function resolveSettings(
  ext: ExtensionDefinition,
  item: ComboItem,
  site: BindSite,
  secrets: Secrets,
): Record<string, unknown> | undefined {
  const raw = typeof item === "string" ? undefined : item.config;
  if (!ext.configSchema) {
    if (raw !== undefined && Object.keys(raw).length) throw refuse(site, "this extension accepts no settings");
    return undefined;
  }
  let resolved: unknown;
  try {
    resolved = secrets.resolve(raw ?? {}, `extension "${site.name}" on tool "${site.tool}"`);
  } catch (e) {
    throw refuse(site, (e as Error).message.replace(/^extension "[^"]+" on tool "[^"]+": /, ""));
  }
  const issues = validate(ext.configSchema, resolved);
  // Issues name paths and rules, never the (possibly secret) values.
  if (issues.length)
    throw refuse(
      site,
      `invalid settings: ${describeIssues(issues)}`,
      issues.map((i) => ({ path: `/config${i.path}`, message: i.message })),
    );
  return resolved as Record<string, unknown>;
}

/** The layer the extension's factory builds over `layer`, checked: a tool with `run`, its input schema valid. */
function nextLayer(
  ext: ExtensionDefinition,
  layer: BranchTool,
  config: Record<string, unknown> | undefined,
  site: BindSite,
): BranchTool {
  let next: BranchTool;
  try {
    next = ext.create(layer, config ?? {});
  } catch (e) {
    throw refuse(site, `the factory refused: ${(e as Error).message}`);
  }
  if (!next || typeof next !== "object" || typeof next.run !== "function")
    throw refuse(site, "the factory must return a tool with a run(input, ctx) function");
  if (ext.kind === "WRAPPER" && !isDeepStrictEqual(next.inputSchema, layer.inputSchema))
    throw refuse(site, "a WRAPPER must keep the tool's input schema (use a TRANSFORMER to change it)");
  if (ext.kind !== "WRAPPER") {
    const problems =
      next.inputSchema?.type === "object"
        ? schemaProblems(next.inputSchema, "/inputSchema")
        : [{ path: "/inputSchema", message: 'must have root type "object"' }];
    if (problems.length) throw refuse(site, `the branch's input schema is invalid: ${describeIssues(problems)}`);
  }
  return next;
}

/** The branch's surface entry: the top layer's body under the branch name, the base's tier and pauses. */
function branchEntry(
  base: SurfaceEntry,
  combo: ComboItem[],
  top: BranchTool,
  stack: ExtensionDefinition[],
): SurfaceEntry {
  const branch = branchName(base.name, combo);
  return {
    name: branch,
    label: top.label,
    description: top.description,
    origin: "BRANCH",
    tier: base.tier,
    inputSchema: top.inputSchema,
    outputSchema: top.outputSchema,
    executionMode: top.executionMode,
    pauses: base.pauses || stack.some((e) => e.pauses),
    baseTool: base.name,
    extensionStack: stack.map((e) => e.name),
    timeoutSeconds: top.timeoutSeconds,
    listed: true,
    policyChain: [branch],
    prepare: (input) => ({ ok: true, value: input }),
    invoke: (input, ctx) => top.run(input as Record<string, unknown>, ctx),
    resume: top.resume ? (state, answers, ctx) => top.resume!(state, answers, ctx) : undefined,
    promptSnippet: top.promptSnippet,
    promptGuidelines: top.promptGuidelines,
    module: "branch",
  };
}

/**
 * Binds a combo over `base`: for each item, innermost first, settings are resolved
 * (`!ENV` markers, only here) and validated against the extension's schema, then its
 * factory builds the next layer. Throws a `branch.bind` {@link DefinitionError} naming extension and tool.
 */
export function bindCombo(
  base: SurfaceEntry,
  combo: ComboItem[],
  catalog: (name: string) => ExtensionDefinition | undefined,
  secrets: Secrets,
): SurfaceEntry {
  let layer = baseLayer(base);
  const stack: ExtensionDefinition[] = [];
  for (const [k, item] of combo.entries()) {
    const site: BindSite = { name: itemName(item), tool: base.name, at: k };
    const ext = catalog(site.name);
    if (!ext) throw refuse(site, "no such extension is loaded (is its module listed in extensionsModules?)");
    const config = resolveSettings(ext, item, site, secrets);
    const next = nextLayer(ext, layer, config, site);
    stack.push(ext);
    layer = { ...next, name: base.name, module: base.module };
  }
  return branchEntry(base, combo, layer, stack);
}
