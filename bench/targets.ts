import { round } from "./lib/percentiles.ts";
import type { BackgroundResult } from "./scenarios/background.ts";
import type { AgentStreamResult } from "./scenarios/agent-stream.ts";
import type { ConnectorResult } from "./scenarios/connector.ts";
import type { DispatchResult } from "./scenarios/dispatch.ts";
import type { FanoutResult } from "./scenarios/fanout.ts";
import type { PgScaleResult } from "./scenarios/pg-scale.ts";
import type { EventOrderResult } from "./scenarios/event-order.ts";
import type { RedactionResult } from "./scenarios/redaction.ts";
import type { RunWritesResult } from "./scenarios/run-writes.ts";
import type { ScalingResult } from "./scenarios/scaling.ts";
import type { StartupResult } from "./scenarios/startup.ts";
import type { LimitsResult } from "./scenarios/limits.ts";

/** What one bench run measured, as written to bench/results/latest.json. */
export interface BenchResults {
  meta: Record<string, unknown>;
  dispatch?: DispatchResult;
  scaling?: ScalingResult;
  fanout?: FanoutResult;
  agent?: AgentStreamResult;
  writes?: RunWritesResult;
  redaction?: RedactionResult;
  connector?: ConnectorResult;
  startup?: StartupResult;
  pgScale?: PgScaleResult;
  eventOrder?: EventOrderResult;
  background?: BackgroundResult;
  limits?: LimitsResult;
  targets: TargetCheck[];
}

/** One target of the benchmark issue, checked against this run's ratios. */
export interface TargetCheck {
  id: string;
  description: string;
  /** "≥ 0.7" or "≤ 2". */
  target: string;
  value: number | null;
  met: boolean | null;
}

function check(
  id: string,
  description: string,
  op: "≥" | "≤",
  bound: number,
  value: number | undefined | null,
): TargetCheck {
  const v = value === undefined || value === null || !Number.isFinite(value) ? null : value;
  return {
    id,
    description,
    target: `${op} ${bound}`,
    value: v,
    met: v === null ? null : op === "≥" ? v >= bound : v <= bound,
  };
}

/**
 * The targets (the run-log rewrite's bounds), from the ratios of one run; a scenario that
 * did not run gives null. The PostgreSQL target is listed only when the run had PostgreSQL.
 */
export function checkTargets(r: BenchResults): TargetCheck[] {
  const d = r.dispatch?.ratios;
  const out = [
    check("dispatch-vs-yoga", "dispatch (SQLite) req/s ÷ bare yoga echo", "≥", 0.7, d?.["tai42-sqlite/yoga"]),
    check(
      "dispatch-vs-mcp-stateless",
      "dispatch (SQLite) req/s ÷ MCP SDK, stateless",
      "≥",
      2,
      d?.["tai42-sqlite/mcp-stateless"],
    ),
    check(
      "dispatch-vs-mcp-session",
      "dispatch (SQLite) req/s ÷ MCP SDK, sessions",
      "≥",
      1.2,
      d?.["tai42-sqlite/mcp-session"],
    ),
    check(
      "mcp-door-vs-mcp-stateless",
      "tai42 MCP door (SQLite, every run persisted) req/s ÷ MCP SDK, stateless",
      "≥",
      1,
      d?.["tai42-mcp-stateless/mcp-stateless"],
    ),
    check(
      "mcp-door-vs-mcp-session",
      "tai42 MCP door (SQLite, every run persisted) req/s ÷ MCP SDK, sessions",
      "≥",
      1,
      d?.["tai42-mcp-session/mcp-session"],
    ),
    check(
      "dispatch-p99-at-50",
      `dispatch (SQLite) p99 ÷ bare yoga p99 at ${r.dispatch?.settings.connections ?? 50} connections`,
      "≤",
      2,
      d?.["tai42-sqlite/yoga p99"],
    ),
    check(
      "dispatch-p50-at-1",
      "dispatch (SQLite) p50 ÷ bare yoga p50 at 1 connection",
      "≤",
      2,
      r.dispatch?.oneConnection?.ratios["tai42-sqlite/yoga p50"],
    ),
  ];
  const x = r.redaction;
  out.push(
    check(
      "redaction-flat",
      "redacting dispatch p50 last ÷ first tenth, over the same for echo alone",
      "≤",
      1.5,
      x && round(x.redacting.ratio / x.echoBaseline.ratio),
    ),
  );
  const c = r.connector;
  out.push(
    check(
      "connector-overhead",
      `connector overhead over the bare SDK client ÷ GraphQL door overhead, p50${c?.notMeasured ? " (connector side not measured)" : ""}`,
      "≤",
      1,
      c?.ratios["connectorOverhead/graphqlOverhead"],
    ),
  );
  out.push(
    check(
      "limits-overhead",
      "dispatch of a tool under generous limits ÷ the same tool without, runs/s (embedded limits)",
      "≥",
      0.9,
      r.limits?.embedded.ratio,
    ),
    check(
      "limits-overhead-redis",
      "the same with the limits counted in Redis (several instances)",
      "≥",
      0.9,
      r.limits?.redis.ratio,
    ),
  );
  const st = r.startup;
  out.push(
    check("startup-help", "tai --help ÷ a bare commander script", "≤", 3, st?.ratios["help/commander"]),
    check(
      "startup-serve-warm",
      "tai serve until listening (warm SQLite) ÷ bare yoga with the same imports",
      "≤",
      2,
      st?.ratios["serveWarm/bareYoga"],
    ),
    check("startup-tools-list", "tai tools list (warm SQLite), ms", "≤", 1000, st?.medianMs.toolsList),
  );
  if (r.agent?.measured)
    for (const p of r.agent.points)
      out.push(
        check(
          `agent-stream-${p.subscribers}`,
          `agent stream events/s ÷ bare subscription, ${p.subscribers} subscriber(s)`,
          "≥",
          0.7,
          p.rateRatio,
        ),
      );
  else
    out.push(
      check(
        "agent-stream",
        `agent streaming ÷ bare subscription (${r.agent ? r.agent.reason : "not run"})`,
        "≥",
        0.7,
        null,
      ),
    );
  for (const f of (r.agent?.measured && r.agent.live) || [])
    out.push(
      check(
        `agent-first-delta${f.secret ? "-secret" : ""}`,
        `first answer delta after the model's first chunk, ms (${f.chunkMs} ms per chunk${f.secret ? `, a secret known: bound is its ${f.lagChars}-char lag + one chunk + 10` : ": bound one chunk + 10"})`,
        "≤",
        f.boundMs,
        f.firstDeltaMs,
      ),
    );
  out.push(
    check(
      "fanout-rate",
      `runEvents fan-out delivered events/s ÷ bare yoga + createPubSub, ${r.fanout?.settings.subscribers ?? 1000} graphql-ws clients`,
      "≥",
      0.8,
      r.fanout?.ratios.deliveryRate,
    ),
    check(
      "fanout-memory",
      "server RSS per idle subscriber ÷ baseline",
      "≤",
      1.5,
      r.fanout?.ratios.memoryPerIdleSubscriber,
    ),
  );
  if (r.meta.postgres) {
    const order = r.eventOrder;
    const at3 = order?.shared.find((c) => c.instances === 3)?.ceilingRunsPerSecond;
    out.push(
      check(
        "event-order-ceiling",
        "event log ceiling at 3 instances (runs/s) ÷ the 1,750 runs/s of the exclusive lock (issue 28)",
        "≥",
        3,
        order?.ratios["shared ceiling @3 / 1750"],
      ),
      check(
        "event-order-no-fall",
        "event log ceiling at 3 instances ÷ at 1 (it must not fall as instances are added)",
        "≥",
        1,
        at3 === undefined ? undefined : order?.ratios["shared 3/1"],
      ),
    );
    // The dispatch scenario's figure when it ran; else pg-scale's one instance (which publishes through Redis).
    const fromDispatch = d?.["tai42-postgres/yoga"];
    const value = fromDispatch ?? r.pgScale?.ratios["one/yoga"];
    const source = fromDispatch !== undefined ? "dispatch" : r.pgScale ? "pg-scale" : "not run";
    out.push(
      check(
        "pg-dispatch-vs-yoga",
        `dispatch (PostgreSQL, one instance) req/s ÷ bare yoga echo (${source})`,
        "≥",
        0.5,
        value,
      ),
    );
  }
  return out;
}
