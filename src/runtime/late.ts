import type { StoredSurface } from "../composition/stored-surface.ts";
import type { Runtime } from "../runtime-types.ts";

/**
 * What an early step's callbacks read once a later step has built it: the stored surface
 * (set by `loadStoredSurface`) and the runtime object (set by `createRuntime` at its end).
 */
export interface Late {
  stored: StoredSurface | null;
  runtime: Runtime | null;
}
