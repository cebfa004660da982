import type { ExtensionDefinition } from "./extension.ts";

/** What holds registered extensions (an `App`). */
export interface ExtensionHolder {
  readonly extensions: ReadonlyMap<string, ExtensionDefinition>;
}

/** The extension catalog over `apps`: built-ins first (a module may not shadow them), then modules. */
export function extensionCatalog(apps: readonly ExtensionHolder[]): {
  extension(name: string): ExtensionDefinition | undefined;
  extensions(): ExtensionDefinition[];
} {
  return {
    extension: (name) => apps.map((a) => a.extensions.get(name)).find(Boolean),
    extensions: () => {
      const seen = new Map<string, ExtensionDefinition>();
      for (const a of apps) for (const e of a.extensions.values()) if (!seen.has(e.name)) seen.set(e.name, e);
      return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name));
    },
  };
}
