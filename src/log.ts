/** A structured line logger (JSON to stderr). Never pass tool inputs or secrets as fields. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export type LogSink = (line: string) => void;

/** What scrubs a line's values (a `secrets/` Scrubber): the logger needs no more of it. */
export interface LineScrubber {
  scrub<T>(value: T): T;
}

/**
 * Lines go to `sink`; TAI_LOG=silent drops them. `secrets` scrubs every line's message and
 * field values (the runtime's, see `secrets/scrubbing-logger.ts`); the level, time and field names are structure.
 */
export function createLogger(
  base: Record<string, unknown> = {},
  sink: LogSink = defaultSink,
  secrets?: LineScrubber,
): Logger {
  const write = (level: string, message: string, fields?: Record<string, unknown>) => {
    const values = { msg: message, ...base, ...fields };
    sink(JSON.stringify({ level, time: new Date().toISOString(), ...(secrets ? secrets.scrub(values) : values) }));
  };
  return {
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger({ ...base, ...fields }, sink, secrets),
  };
}

/** `log.child(fields)`, made only when first written to (a run's logger, which most runs never use). */
export function lazyChild(log: Logger, fields: Record<string, unknown>): Logger {
  let child: Logger | null = null;
  const get = () => (child ??= log.child(fields));
  return {
    info: (m, f) => get().info(m, f),
    warn: (m, f) => get().warn(m, f),
    error: (m, f) => get().error(m, f),
    child: (more) => get().child(more),
  };
}

function defaultSink(line: string): void {
  if (process.env.TAI_LOG === "silent") return;
  process.stderr.write(line + "\n");
}
