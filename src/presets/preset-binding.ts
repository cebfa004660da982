import type { ComboItem } from "../manifests/manifest.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { Preset } from "./preset.ts";

/**
 * What a preset write consults about the composed surface (implemented by
 * `composition/stored-surface.ts` over the active manifest it applies): the branches it
 * binds, and how to bind a combo or build a preset's entry once, to check and discard.
 */
export interface PresetBinding {
  /** The combo the active manifest binds as the branch named `name`, if any. */
  branch(name: string): { tool: string; combo: ComboItem[] } | undefined;
  /** The combos the active manifest attaches to `tool` (none: empty). */
  combosOver(tool: string): ComboItem[][];
  /**
   * Binds `combo` over `base` once, calling each factory again; throws a `branch.bind` `DefinitionError` naming
   * extension and tool.
   */
  bind(base: SurfaceEntry, combo: ComboItem[]): SurfaceEntry;
  /** The entry `preset` would have over `base`. */
  presetEntry(preset: Preset, base: SurfaceEntry): SurfaceEntry;
}
