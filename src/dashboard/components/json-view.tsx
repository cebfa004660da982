import type { ReactNode } from "react";

/** `"!ENV NAME"`: a setting the server resolves from its environment at bind time. */
const ENV_MARKER = /^!ENV\s+([A-Za-z_][A-Za-z0-9_]*)$/;

/** The variable an `!ENV` marker names, or null when the value is not a marker. */
export function envVariable(value: unknown): string | null {
  return typeof value === "string" ? (ENV_MARKER.exec(value)?.[1] ?? null) : null;
}

/** An `!ENV` setting: shown sealed, by its variable name only. */
export function Sealed({ variable }: { variable: string }) {
  return (
    <span className="sealed" title={`resolved on the server from the environment variable ${variable}; never served`}>
      <LockIcon /> env {variable}
    </span>
  );
}

/**
 * A JSON value, indented like JSON.stringify(v, null, 2), with `!ENV` markers sealed and
 * `"[redacted]"` marked as such.
 */
export function JsonView({ value, empty = "—" }: { value: unknown; empty?: string }) {
  if (value === undefined || value === null) return <span className="faint">{empty}</span>;
  return <pre className="json">{render(value, 0)}</pre>;
}

function render(value: unknown, depth: number): ReactNode {
  const pad = "  ".repeat(depth + 1);
  const close = "  ".repeat(depth);
  if (typeof value === "string") {
    const variable = envVariable(value);
    if (variable) return <Sealed variable={variable} />;
    if (value === "[redacted]") return <span className="redacted">[redacted]</span>;
    return <span className="j-str">{JSON.stringify(value)}</span>;
  }
  if (typeof value === "number" || typeof value === "boolean" || value === null)
    return <span className="j-lit">{String(value)}</span>;
  if (Array.isArray(value)) {
    if (!value.length) return "[]";
    return (
      <>
        {"[\n"}
        {value.map((v, i) => (
          <span key={i}>
            {pad}
            {render(v, depth + 1)}
            {i < value.length - 1 ? ",\n" : "\n"}
          </span>
        ))}
        {close}]
      </>
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.length) return "{}";
  return (
    <>
      {"{\n"}
      {entries.map(([k, v], i) => (
        <span key={k}>
          {pad}
          <span className="j-key">{JSON.stringify(k)}</span>: {render(v, depth + 1)}
          {i < entries.length - 1 ? ",\n" : "\n"}
        </span>
      ))}
      {close}
      {"}"}
    </>
  );
}

function LockIcon() {
  return (
    <svg viewBox="0 0 16 16" width="11" height="11" aria-hidden="true">
      <rect x="3" y="7" width="10" height="8" rx="1.5" fill="currentColor" />
      <path d="M5 7V5a3 3 0 0 1 6 0v2" fill="none" stroke="currentColor" strokeWidth="1.8" />
    </svg>
  );
}
