import type { BackgroundResult } from "./scenarios/background.ts";
import type { ConnectorResult } from "./scenarios/connector.ts";
import type { RedactionResult } from "./scenarios/redaction.ts";
import type { BenchResults } from "./targets.ts";

function table(title: string, head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map((c) => String(c)))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [`\n${title}`, line(head), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join(
    "\n",
  );
}

function backgroundTable(b: BackgroundResult): string {
  const s = b.settings;
  return table(
    `Background dispatch: echo in process, ${s.runs} runs per block × ${s.rounds} rounds (interleaved with synchronous), ${s.concurrency} callers and ${s.concurrency} queue workers`,
    [
      "database",
      "sync runs/s",
      "enqueue calls/s",
      "bg completion runs/s",
      "completion ÷ sync",
      "queue p50 ms",
      "queue p99 ms",
      "stored p50/p99 ms",
      "idle queue p50/p99 ms",
    ],
    Object.entries(b.databases).map(([kind, r]) => [
      `${kind} (${r.engine})`,
      r.synchronous.runsPerSecond,
      r.background.enqueuePerSecond,
      r.background.completionPerSecond,
      r.ratios["completion/synchronous"],
      r.queueLatencyMs.p50,
      r.queueLatencyMs.p99,
      `${r.queueLatencyMs.storedP50}/${r.queueLatencyMs.storedP99}`,
      `${r.idleQueueLatencyMs.p50}/${r.idleQueueLatencyMs.p99}`,
    ]),
  );
}

function connectorTable(c: ConnectorResult): string {
  const row = (name: string, f: ConnectorResult["sides"]["bare"] | null) =>
    f ? [name, f.calls, f.p50, f.p99, f.mean] : [name, "not measured", "", "", ""];
  const { sides, overheadMs, ratios } = c;
  return [
    table(
      `Connector: server-everything's echo over stdio, one call after the other, ${c.settings.blocks} alternating blocks`,
      ["path", "calls", "p50 ms", "p99 ms", "mean ms"],
      [
        row("bare MCP SDK Client.callTool", sides.bare),
        row("tai42 connector tool, in-process dispatch", sides.tai42),
        row("local echo, in-process dispatch", sides.inProcessEcho),
        row("local echo, GraphQL dispatch over HTTP", sides.graphqlEcho),
      ],
    ),
    table(
      "Connector overhead (p50)",
      ["figure", "value"],
      [
        ["connector − bare ms", overheadMs.connector ?? "n/a"],
        ["GraphQL − in-process ms", overheadMs.graphql],
        ["connector ÷ bare", ratios["tai42/bare p50"] ?? "n/a"],
        ["connector overhead ÷ GraphQL overhead", ratios["connectorOverhead/graphqlOverhead"] ?? "n/a"],
      ],
    ),
  ].join("\n");
}

/** The human-readable summary printed at the end of a run. */
export function formatResults(r: BenchResults): string {
  const parts: string[] = [
    `\nNode ${String(r.meta.node ?? "?")} on ${String(r.meta.platform ?? "?")}, ${String(r.meta.cpus ?? "?")} CPU(s)`,
  ];
  if (r.dispatch) {
    const s = r.dispatch.settings;
    parts.push(
      table(
        `Dispatch: ${s.connections} connections, ${s.durationSeconds} s measured after ${s.warmupSeconds} s warm-up, ${s.rounds} round(s)`,
        ["server", "req/s", "p50 ms", "p99 ms", "errors"],
        Object.entries(r.dispatch.servers).map(([n, f]) => [
          n,
          f.rps.toFixed(0),
          f.p50,
          f.p99,
          f.errors + f.non2xx + f.timeouts,
        ]),
      ),
      table(
        "Dispatch ratios",
        ["ratio", "value"],
        Object.entries(r.dispatch.ratios).map(([k, v]) => [k, v]),
      ),
    );
    const one = r.dispatch.oneConnection;
    if (one)
      parts.push(
        table(
          `Dispatch at 1 connection: ${one.settings.durationSeconds} s measured after ${one.settings.warmupSeconds} s warm-up, every response timed`,
          ["server", "req/s", "p50 ms", "p99 ms", "errors"],
          Object.entries(one.servers).map(([n, f]) => [
            n,
            f.rps.toFixed(0),
            f.p50,
            f.p99,
            f.errors + f.non2xx + f.timeouts,
          ]),
        ),
        table(
          "Dispatch ratios at 1 connection",
          ["ratio", "value"],
          Object.entries(one.ratios).map(([k, v]) => [k, v]),
        ),
      );
  }
  if (r.scaling)
    parts.push(
      table(
        "Scaling (SQLite dispatch vs bare yoga echo)",
        ["connections", "tai42 req/s", "tai42 p99", "yoga req/s", "yoga p99", "req/s ratio", "p99 ratio"],
        r.scaling.points.map((p) => [
          p.connections,
          p.tai42.rps.toFixed(0),
          p.tai42.p99,
          p.yoga.rps.toFixed(0),
          p.yoga.p99,
          p.rpsRatio,
          p.p99Ratio,
        ]),
      ),
    );
  if (r.fanout) {
    const f = r.fanout;
    parts.push(
      table(
        `Fan-out: ${f.settings.subscribers} graphql-ws subscribers, ${f.settings.dispatches} dispatches`,
        ["server", "deliveries", "events/s", "p50 ms", "p99 ms", "bytes/msg", "RSS KiB/idle sub", "heap KiB/idle sub"],
        (["baseline", "tai42"] as const).map((k) => [
          k === "baseline" ? "bare yoga + createPubSub" : "tai42 runEvents",
          `${f[k].deliveries}/${f[k].expectedDeliveries}`,
          f[k].eventsPerSecond,
          f[k].p50,
          f[k].p99,
          f[k].messageBytes,
          f[k].rssPerIdleSubscriberKiB,
          f[k].heapPerIdleSubscriberKiB,
        ]),
      ),
    );
  }
  if (r.agent) {
    if (!r.agent.measured) parts.push(`\nAgent streaming: NOT MEASURED (${r.agent.reason})`);
    else
      parts.push(
        table(
          `Agent streaming: ${r.agent.settings.deltas} message deltas`,
          [
            "subscribers",
            "tai42 events/s",
            "tai42 TTFE ms",
            "bare events/s",
            "bare TTFE ms",
            "rate ratio",
            "TTFE ratio",
          ],
          r.agent.points.map((p) => [
            p.subscribers,
            p.tai42.eventsPerSecond,
            p.tai42.ttfeMs,
            p.baseline.eventsPerSecond,
            p.baseline.ttfeMs,
            p.rateRatio,
            p.ttfeRatio,
          ]),
        ),
      );
    if (r.agent?.measured && r.agent.live)
      parts.push(
        table(
          `The answer as the model writes it (1 subscriber, ${r.agent.settings.paced.words} chunks, ${r.agent.settings.paced.chunkMs} ms apart)`,
          [
            "server",
            "lag chars",
            "first delta − model's first chunk ms",
            "bound ms",
            "delta spread ms",
            "model spread ms",
            "subscribe → first delta ms",
          ],
          r.agent.live.map((f) => [
            f.secret ? "knows a secret" : "no secret",
            f.lagChars,
            f.firstDeltaMs,
            f.boundMs,
            f.spreadMs,
            f.modelSpreadMs,
            f.fromSubscribeMs,
          ]),
        ),
      );
  }
  if (r.writes)
    parts.push(
      table(
        `Run writes of one dispatch (two transactions), ${r.writes.dispatches} in a row`,
        ["path", "µs per dispatch"],
        [
          ...Object.entries(r.writes.runStore).map(([k, v]) => [
            `tai42 RunStore (the run log's writer), ${k}`,
            v.usPerDispatch,
          ]),
          ["raw better-sqlite3, same statements", r.writes.rawSqliteUsPerDispatch],
        ],
      ),
    );
  if (r.redaction) {
    const x = r.redaction;
    const row = (name: string, t: RedactionResult["redacting"], ratio: number | string = "") => [
      name,
      t.firstP50,
      t.lastP50,
      t.ratio,
      ratio,
    ];
    parts.push(
      table(
        `Redaction: ${x.dispatches} in-process dispatches redacting a fresh value each (cross-run cache ${x.cacheSize}), p50 of the first and last tenth`,
        ["dispatches", "first p50 ms", "last p50 ms", "last/first", "last ÷ echo alone"],
        [
          row("redact_fresh", x.redacting, x.ratios["redacting/echo"]),
          row("echo after every 10th", x.echoBetween, x.ratios["echoBetween/echo"]),
          row("echo alone (fresh runtime)", x.echoBaseline),
        ],
      ),
    );
  }
  if (r.connector) parts.push(connectorTable(r.connector));
  if (r.background) parts.push(backgroundTable(r.background));
  if (r.startup) {
    const { medianMs: m, cpuMs: c, ratios } = r.startup;
    const row = (name: string, k: keyof typeof m, ratio: number | string = "") => [name, m[k], c ? c[k] : "n/a", ratio];
    parts.push(
      table(
        `Start-up (median of ${r.startup.settings.runs}; a server until it prints "listening"; tai with Node's compile cache, baselines without)`,
        ["command", "wall ms", "CPU ms", "ratio"],
        [
          row("node -e 0", "node"),
          row("bare commander script --help", "commander"),
          row("tai --help", "help", `${ratios["help/commander"]} × commander`),
          row("tai tools list (warm SQLite)", "toolsList"),
          row(`bare yoga + graphql-ws, same ${r.startup.baselineImports.length} imports`, "bareYoga"),
          row("tai serve (warm SQLite)", "serveWarm", `${ratios["serveWarm/bareYoga"]} × bare yoga`),
          row(
            "tai serve (fresh SQLite: migrate, first key)",
            "serveFresh",
            `${ratios["serveFresh/bareYoga"]} × bare yoga`,
          ),
          row("diagnostic: tai --help, no compile cache", "helpNoCache"),
          row("diagnostic: tai tools list, no compile cache", "toolsListNoCache"),
          row("diagnostic: tai serve (warm), no compile cache", "serveWarmNoCache"),
        ],
      ),
    );
  }
  if (r.pgScale) {
    const p = r.pgScale;
    const s = p.settings;
    const redis =
      "prefix" in p.redis ? `one Redis (channel prefix ${p.redis.prefix})` : `no Redis (${p.redis.unavailable})`;
    const pct = (v: number | undefined) => (v === undefined ? "" : `${(v * 100).toFixed(1)} %`);
    const row = (name: string, f: typeof p.one) => [
      name + (f.perInstance ? ` (${f.perInstance.map((i) => i.rps.toFixed(0)).join(" + ")})` : ""),
      f.rps.toFixed(0),
      f.p50,
      f.p99,
      f.errors + f.non2xx + f.timeouts,
      pct(f.lockWait?.advisoryWaitShare),
      f.lockWait?.advisoryQueueMean ?? "",
      f.lockWait?.advisoryQueueMax ?? "",
      pct(f.lockWait?.holderIdleInTransactionShare),
      f.lockWait?.samples ?? "",
    ];
    parts.push(
      table(
        `PostgreSQL scale-out: ${s.connections} connections in all, ${s.durationSeconds} s measured after ${s.warmupSeconds} s warm-up, ${s.rounds} round(s); one database, ${redis}`,
        [
          "server",
          "req/s",
          "p50 ms",
          "p99 ms",
          "errors",
          "advisory wait",
          "queue mean",
          "queue max",
          "holder idle in tx",
          "samples",
        ],
        [row("bare yoga echo", p.yoga), row("tai42, one instance", p.one), row("tai42, two instances", p.two)],
      ),
      table(
        "PostgreSQL scale-out ratios",
        ["ratio", "value"],
        Object.entries(p.ratios).map(([k, v]) => [k, v]),
      ),
    );
  }
  if (r.eventOrder) parts.push(...eventOrderTables(r.eventOrder));
  parts.push(
    table(
      "Targets",
      ["target", "bound", "value", "met"],
      r.targets.map((t) => [
        t.description,
        t.target,
        t.value ?? "n/a",
        t.met === null ? "not measured" : t.met ? "yes" : "NO",
      ]),
    ),
  );
  return parts.join("\n");
}

/** The event-order scenario: each design's figures at 1, 2 and 3 instances, and the ratios. */
function eventOrderTables(o: NonNullable<BenchResults["eventOrder"]>): string[] {
  const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
  const rows = (mode: string, configs: typeof o.shared) =>
    configs.map((c) => [
      `${mode}, ${c.instances} instance${c.instances > 1 ? "s" : ""}`,
      c.load.rps.toFixed(0),
      c.load.errors + c.load.non2xx + c.load.timeouts,
      c.eventsPerBatch,
      pct(c.lockWait.runEventExclusiveShare),
      c.lockWait.runEventSharedMean,
      pct(c.lockWait.lockWaitShare),
      c.holdMsPerBatch ?? `nextval ${o.nextvalMicros} µs`,
      c.ceilingRunsPerSecond,
    ]);
  const s = o.settings;
  return [
    table(
      `Run event log ceiling on one PostgreSQL: ${s.connections} connections in all split over the instances, ${s.durationSeconds} s measured, lock samples every ${s.sampleMs} ms`,
      [
        "design",
        "req/s",
        "errors",
        "events/batch",
        "exclusive held",
        "registered writers",
        "lock waiters",
        "serialised step",
        "ceiling runs/s",
      ],
      [...rows("exclusive (baseline)", o.exclusive), ...rows("shared (settled order)", o.shared)],
    ),
    table(
      "Run event log ratios",
      ["ratio", "value"],
      Object.entries(o.ratios).map(([k, v]) => [k, v]),
    ),
  ];
}
