import { isDefinitionError } from "../definition-error.ts";
import type { Issue } from "../errors.ts";
import type { Surface } from "../registry/surface.ts";
import { resolvePolicy, type RetryPolicyInit } from "../retry/policy.ts";
import { validate, type JsonSchema } from "../tools/json-schema.ts";
import type { ComboItem, ManifestDocument } from "./manifest.ts";
import { isGlob } from "./selection.ts";
import { bindCombo, BIND_RULE, branchName, itemName } from "../registry/entries/branch-entry.ts";
import type { ExtensionDefinition } from "../extensions/extension.ts";
import type { Secrets } from "../secrets/secrets.ts";

const comboItem: JsonSchema = {
  oneOf: [
    { type: "string", minLength: 1 },
    {
      type: "object",
      properties: { name: { type: "string", minLength: 1 }, config: { type: "object" } },
      required: ["name"],
      additionalProperties: false,
    },
  ],
};
const names = { type: "array", items: { type: "string", minLength: 1 } };

/** The structural shape of a manifest document (draft 2020-12). */
export const MANIFEST_DOCUMENT_SCHEMA: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    tools: { type: "object", additionalProperties: false, properties: { include: names, exclude: names } },
    extensions: {
      type: "object",
      additionalProperties: {
        oneOf: [
          { type: "array", minItems: 1, items: comboItem },
          { type: "array", minItems: 1, items: { type: "array", minItems: 1, items: comboItem } },
        ],
      },
    },
    extensionsModules: { type: "array", items: { type: "string", minLength: 1 } },
    retry: { type: "object", additionalProperties: { type: "object" } },
  },
};

/** Normalises the `extensions` value of one tool to a list of combos. */
export function combosOf(value: ComboItem[] | ComboItem[][]): ComboItem[][] {
  return value.length && Array.isArray(value[0]) ? (value as ComboItem[][]) : [value as ComboItem[]];
}

/** What the document's semantic checks may consult. */
export interface DocumentContext {
  surface: Surface;
  /** The extension catalog. */
  extension(name: string): ExtensionDefinition | undefined;
  /** Stored preset names (presets are surface entries too, but may be mid-write). */
  presets: Set<string>;
  /** Modules loaded without a manifest (built-ins, TAI_MODULES): their extensions need no listing. */
  baseModules: Set<string>;
  /** Why the document may not name a module (`module-allow-list.ts`), or null. Checked before any import. */
  moduleRefusal(ref: string): string | null;
  /** Imports the document's extensionsModules (all allowed); returns a problem per module that fails. */
  load(modules: string[]): Promise<Issue[]>;
  /** Resolves `!ENV` settings when a combo binds. */
  secrets: Secrets;
  cwd?: string;
}

/**
 * The problems found without importing anything: the document's shape, and modules a
 * manifest may not name. A document with any of them is refused before any import.
 */
export function importFreeIssues(doc: unknown, ctx: Pick<DocumentContext, "moduleRefusal">): Issue[] {
  const shape = validate(MANIFEST_DOCUMENT_SCHEMA, doc).map((i) => ({
    path: `/document${i.path}`,
    message: i.message,
  }));
  if (shape.length) return shape;
  return ((doc as ManifestDocument).extensionsModules ?? []).flatMap((m, i) => {
    const refusal = ctx.moduleRefusal(m);
    return refusal ? [{ path: `/document/extensionsModules/${i}`, message: refusal }] : [];
  });
}

/**
 * Every problem with a manifest document: its shape and refused modules (then nothing is
 * imported), then, after importing its allowed modules (binding needs their extensions),
 * unknown tools, extensions, modules, settings and retry targets, each issue naming the item.
 */
export async function documentIssues(doc: unknown, ctx: DocumentContext): Promise<Issue[]> {
  const early = importFreeIssues(doc, ctx);
  if (early.length) return early;
  const d = doc as ManifestDocument;
  const issues: Issue[] = (await ctx.load(d.extensionsModules ?? [])).map((i) => ({
    ...i,
    path: `/document/extensionsModules${i.path}`,
  }));
  const known = (n: string) => Boolean(ctx.surface.base(n)) || ctx.presets.has(n);
  // Every branch the document binds, so selection and retry may name them.
  const branches = new Set(
    Object.entries(d.extensions ?? {}).flatMap(([tool, value]) =>
      combosOf(value).map((combo) => branchName(tool, combo)),
    ),
  );

  for (const list of ["include", "exclude"] as const)
    (d.tools?.[list] ?? []).forEach((n, i) => {
      if (!isGlob(n) && !known(n) && !branches.has(n))
        issues.push({ path: `/document/tools/${list}/${i}`, message: `unknown tool "${n}"` });
    });

  for (const [tool, value] of Object.entries(d.extensions ?? {})) {
    if (!known(tool)) issues.push({ path: `/document/extensions/${tool}`, message: `unknown tool "${tool}"` });
    combosOf(value).forEach((combo, c) => {
      let bindable = known(tool);
      combo.forEach((item, k) => {
        const n = itemName(item);
        const ext = ctx.extension(n);
        if (!ext) {
          bindable = false;
          issues.push({
            path: `/document/extensions/${tool}/${c}/${k}`,
            message: `unknown extension "${n}" (is its module listed in extensionsModules?)`,
          });
        } else if (!ctx.baseModules.has(ext.module) && !(d.extensionsModules ?? []).includes(ext.module)) {
          bindable = false;
          issues.push({
            path: `/document/extensions/${tool}/${c}/${k}`,
            message: `extension "${n}" comes from module "${ext.module}", which this manifest does not list in extensionsModules`,
          });
        }
      });
      // Every write binds each combo once (then discards it), so a refused setting or a
      // refusing factory is reported here, at the door that wrote it.
      const base = bindable ? ctx.surface.base(tool) : undefined;
      if (base) {
        try {
          bindCombo(base, combo, ctx.extension, ctx.secrets);
        } catch (e) {
          if (!isDefinitionError(e, BIND_RULE)) throw e;
          issues.push({ path: `/document/extensions/${tool}/${c}`, message: e.message });
        }
      }
    });
  }

  for (const [name, policy] of Object.entries(d.retry ?? {})) {
    if (!known(name) && !branches.has(name))
      issues.push({ path: `/document/retry/${name}`, message: `unknown tool, preset or branch "${name}"` });
    try {
      resolvePolicy(name, policy as RetryPolicyInit);
    } catch (e) {
      if (!isDefinitionError(e, "retry.")) throw e;
      issues.push(...e.issues.map((i) => ({ path: `/document/retry/${name}${i.path}`, message: i.message })));
    }
  }
  return issues;
}
