import { graphql, type ResultOf } from "tai42/client";

export const PresetsQuery = graphql(`
  query Presets {
    presets {
      name
      description
      baseTool
      fixedKwargs
      tier
      version
      createdAt
      updatedAt
      retryPolicy {
        maxAttempts
        declaredOn
      }
    }
  }
`);
export type Preset = ResultOf<typeof PresetsQuery>["presets"][number];

export const CreatePresetMutation = graphql(`
  mutation CreatePreset($input: PresetInput!) {
    createPreset(input: $input) {
      name
      version
    }
  }
`);

/** Applies only when the stored version is still `expectedVersion` (else CONFLICT: someone saved in between). */
export const UpdatePresetMutation = graphql(`
  mutation UpdatePreset($name: String!, $input: PresetInput!, $expectedVersion: Int!) {
    updatePreset(name: $name, input: $input, expectedVersion: $expectedVersion) {
      name
      version
    }
  }
`);

export const ManifestsQuery = graphql(`
  query Manifests {
    manifests {
      name
      description
      version
      active
      document
      updatedAt
      history {
        version
        createdAt
        description
      }
    }
  }
`);
export type Manifest = ResultOf<typeof ManifestsQuery>["manifests"][number];

export const ActivateManifestMutation = graphql(`
  mutation ActivateManifest($name: String!) {
    activateManifest(name: $name) {
      name
      active
      version
    }
  }
`);

export const PutManifestMutation = graphql(`
  mutation PutManifest($input: ManifestInput!, $expectedVersion: Int) {
    putManifest(input: $input, expectedVersion: $expectedVersion) {
      name
      version
      active
    }
  }
`);

export const ExtensionsQuery = graphql(`
  query Extensions {
    extensions {
      name
      kind
      description
      pauses
      configSchema
      module
    }
  }
`);
export type Extension = ResultOf<typeof ExtensionsQuery>["extensions"][number];

/** One item of a combo: an extension's name, or its name with settings. */
export type ComboItem = string | { name: string; config: Record<string, unknown> };

/**
 * A manifest document with one more combo on `tool`: its `extensions` entry keeps its
 * combos (one combo or a list of them) and gains this one, and a `tools.include`
 * selection gains the branch it binds (`<tool>_<ext>`), so the branch is on the surface.
 */
export function withCombo(document: Record<string, unknown>, tool: string, item: ComboItem): Record<string, unknown> {
  const extensions = { ...((document.extensions as Record<string, unknown> | undefined) ?? {}) };
  const current = extensions[tool];
  const combos: unknown[] = !Array.isArray(current) ? [] : current.every(Array.isArray) ? [...current] : [current];
  extensions[tool] = [...combos, [item]];
  const next: Record<string, unknown> = { ...document, extensions };
  const tools = document.tools as { include?: unknown } | undefined;
  if (tools && Array.isArray(tools.include)) {
    const branch = `${tool}_${typeof item === "string" ? item : item.name}`;
    next.tools = { ...tools, include: [...new Set([...tools.include, branch])] };
  }
  return next;
}
