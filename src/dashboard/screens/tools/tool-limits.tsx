import type { Tool } from "../../api/tools.ts";

type Declared = Tool["limits"][number];

/** One declaration along the chain, in words: "at most 2 at once per key (waits 10 s) · 10 every 1 s · …". */
function describe(d: Declared): string {
  const parts: string[] = [];
  const c = d.concurrency;
  if (c)
    parts.push(`at most ${c.max} at once${c.scope === "tool" ? "" : ` per ${c.scope}`} (waits ${c.waitSeconds} s)`);
  const r = d.rate;
  if (r)
    parts.push(
      `${r.tokens} every ${r.intervalSeconds} s${r.burst > r.tokens ? `, bursts of ${r.burst}` : ""}${r.per === "tool" ? "" : r.per === "key" ? " per key" : " per key across tools"}`,
    );
  const b = d.breaker;
  if (b) parts.push(`breaker after ${b.failures} failures in a row, open ${b.coolDownSeconds} s`);
  return parts.join(" · ");
}

/** The limits a tool's runs are under (docs/flow-control.md), and its breaker's state when it declares one. */
export function LimitFacts({ tool }: { tool: Tool }) {
  const open = tool.breakerOpenSeconds;
  return (
    <>
      <dt>Limits</dt>
      <dd data-testid="tool-limits">
        {tool.limits.length === 0 ? (
          "none"
        ) : (
          <ul className="limits-list">
            {tool.limits.map((d) => (
              <li key={d.declaredOn}>
                {describe(d)}
                {d.declaredOn !== tool.name && <span className="muted"> (declared on {d.declaredOn})</span>}
              </li>
            ))}
          </ul>
        )}
      </dd>
      {open !== null && (
        <>
          <dt>Breaker</dt>
          <dd data-testid="tool-breaker" data-open={open > 0}>
            {open > 0 ? `open: refused for ${open} s more` : "closed"}
          </dd>
        </>
      )}
    </>
  );
}
