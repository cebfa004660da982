import { scrubText } from "./tools/redact.ts";

/** A structured line logger (JSON to stderr). Never pass tool inputs or secrets as fields. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export type LogSink = (line: string) => void;

/** Lines go to `sink`; TAI_LOG=silent drops them. */
export function createLogger(base: Record<string, unknown> = {}, sink: LogSink = defaultSink): Logger {
  // Known secret values (resolved !ENV markers, ctx.redact) are scrubbed from every line.
  const write = (level: string, message: string, fields?: Record<string, unknown>) =>
    sink(scrubText(JSON.stringify({ level, time: new Date().toISOString(), msg: message, ...base, ...fields })));
  return {
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger({ ...base, ...fields }, sink),
  };
}

function defaultSink(line: string): void {
  if (process.env.TAI_LOG === "silent") return;
  process.stderr.write(line + "\n");
}
