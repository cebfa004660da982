import type { Logger } from "../log.ts";
import type { Scrubber } from "./secrets.ts";

/**
 * `log` with every message and field scrubbed of the known secrets first (the runtime wraps whatever logger it is
 * given).
 */
export function scrubbingLogger(log: Logger, secrets: Scrubber): Logger {
  const fieldsOf = (f?: Record<string, unknown>) =>
    f
      ? secrets.scrub(
          Object.fromEntries(
            Object.entries(f).map(([k, v]) => [k, v instanceof Error ? `${v.name}: ${v.message}` : v]),
          ),
        )
      : f;
  return {
    info: (m, f) => log.info(secrets.scrubText(m), fieldsOf(f)),
    warn: (m, f) => log.warn(secrets.scrubText(m), fieldsOf(f)),
    error: (m, f) => log.error(secrets.scrubText(m), fieldsOf(f)),
    child: (fields) => scrubbingLogger(log.child(fieldsOf(fields)!), secrets),
  };
}
