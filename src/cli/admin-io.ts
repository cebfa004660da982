import { readFileSync } from "node:fs";
import { InvalidArgumentError } from "commander";
import type { Runtime } from "../runtime.ts";

/**
 * What the ADMIN commands over stored configuration (`tai connectors`, `tai schedules`) share: the key they run as,
 * the `--expected-version` option, reading a `put` file, and printing as the API serves.
 */

export type KeyOpt = { key?: string };

/** `--key` of a command that reads stored data: the key is checked (unknown or revoked: refused), nothing more. */
export const READ_KEY = ["--key <key>", "API key, checked (default: $TAI_KEY)"] as const;

/** The key a command runs as: `--key`, else `$TAI_KEY`. */
export const keyOf = (o: KeyOpt) => o.key ?? process.env.TAI_KEY;

/** Parses `--expected-version`: the stored version read before the change. */
export function parseVersion(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError("must be a whole number (the version read before the change)");
  return n;
}

/** The text of a `put` file, or a usage error naming it. */
export function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new InvalidArgumentError(`cannot read ${file} (${(e as Error).message})`);
  }
}

/** Prints as the API serves: values scrubbed of the runtime's known secrets. */
export function print(rt: Runtime, value: unknown): void {
  process.stdout.write(`${JSON.stringify(rt.secrets.scrub(value), null, 2)}\n`);
}
