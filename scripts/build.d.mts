/** Why dist/ does not match the sources: a reason and the inputs that changed. */
export interface Staleness {
  reason: string;
  changed: string[];
}

/** Where the stamp of the last build lives, relative to the package root. */
export const STAMP: string;
/** Whether `root` is a development checkout (sources and build config present), not an installed package. */
export function isCheckout(root?: string): boolean;
/** Why dist/ under `root` does not match its sources, or null when it does. */
export function staleness(root?: string): Staleness | null;
/** One line for a person: what is stale. */
export function describeStaleness(s: Staleness): string;
/**
 * Compiles src/ into dist/, bundles the dashboard (when src/dashboard/ is there) and stamps it; throws when tsc or
 * esbuild reports an error.
 */
export function build(root?: string, options?: { quiet?: boolean }): void;
/** Builds when dist/ is stale; returns what was stale, or null when nothing was built. */
export function buildIfStale(root?: string, options?: { quiet?: boolean }): Staleness | null;
