import type { RetryPolicyInit } from "../retry/policy.ts";

/** One combo item: an extension name, or a name with settings. */
export type ComboItem = string | { name: string; config?: Record<string, unknown> };

/** A manifest document: what the API surface exposes and how it is composed. */
export interface ManifestDocument {
  /** Which tools, presets and branches the surface exposes. Names or globs (`*`, `?`). Default: everything. */
  tools?: { include?: string[]; exclude?: string[] };
  /** Per tool: one combo (`["monitor"]`) or a list of combos (`[["monitor"], ["label", "cache"]]`). */
  extensions?: Record<string, ComboItem[] | ComboItem[][]>;
  /** Extension modules to load before attaching (paths relative to the server's working directory). */
  extensionsModules?: string[];
  /** Retry declarations by exact name (a tool, preset or branch). */
  retry?: Record<string, RetryPolicyInit>;
}

/** A stored manifest as every read serves it. */
export interface Manifest {
  name: string;
  description: string | null;
  version: number;
  active: boolean;
  document: ManifestDocument;
  createdAt: string;
  updatedAt: string;
}

/** One stored version of a manifest. */
export interface ManifestVersion {
  version: number;
  description: string | null;
  document: ManifestDocument;
  createdAt: string;
}
