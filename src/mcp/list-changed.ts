import type { Caller } from "../auth/roles.ts";
import type { Surface } from "../registry/surface.ts";
import { toolsFor } from "./tool-listing.ts";

/**
 * Calls `notify` each time the tools `caller` may list change: a manifest activation, a
 * preset created, updated or deleted, a module registering tools, here or (through the
 * bus) on another instance. A rebuild that leaves the caller's list as it was (a change
 * to a tier above its role) notifies nothing. Returns the function that stops watching.
 */
export function watchToolList(surface: Surface, caller: Caller, notify: () => void): () => void {
  const snapshot = () => JSON.stringify(toolsFor(surface, caller));
  let last = snapshot();
  return surface.onChange(() => {
    const now = snapshot();
    if (now === last) return;
    last = now;
    try {
      notify();
    } catch {
      // A stream that is going away: its watch ends with it.
    }
  });
}
