import { scrubValue, scrubValueOf } from "../../tools/redact.ts";

/**
 * Values one run learned from secret-tier tools (their arguments and results). Everything
 * the run stores or publishes is scrubbed of them, so a model that repeats a secret
 * result in its answer streams "[redacted]" instead. Scoped to the run: nothing
 * process-wide grows.
 */
export class RunSecrets {
  private readonly values = new Set<string>();

  /** Remembers every string of at least 4 characters inside `value`. */
  learn(value: unknown): void {
    const walk = (v: unknown): void => {
      if (typeof v === "string") {
        if (v.length >= 4) this.values.add(v);
      } else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") Object.values(v).forEach(walk);
    };
    walk(value);
  }

  /** A deep copy of `value` with this run's and the process's known secrets replaced. */
  scrub<T>(value: T): T {
    return scrubValueOf(scrubValue(value), this.values);
  }
}
