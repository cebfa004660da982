import type { Child } from "../lib/child.ts";
import type { ScratchDatabases } from "../lib/databases.ts";
import { figuresLine, meanFigures, measureHttp, type HttpTarget, type LoadFigures } from "../lib/load.ts";
import { round } from "../lib/percentiles.ts";
import { startMcp, startRaw, startTai42, startYoga } from "../lib/servers.ts";
import { checkTarget, mcpTarget, openMcpSessions, rawTarget, tai42Target, yogaTarget } from "../lib/targets.ts";
import type { BenchSettings } from "../settings.ts";

/** One server's figures: the mean over rounds, and each round. */
export interface ServerFigures extends LoadFigures {
  rounds: LoadFigures[];
  /** tai42 only: what the database holds afterwards (every request a stored run). */
  persisted?: { runs: number; succeeded: number; events: number };
}

/** Scenario 1: dispatch throughput and latency against the baselines and the peer, over GraphQL and over MCP. */
export interface DispatchResult {
  settings: BenchSettings["dispatch"];
  servers: Record<string, ServerFigures>;
  /** tai42 req/s over each other server's (and p99 over bare yoga's), per tai42 server (databases and the MCP door). */
  ratios: Record<string, number>;
  /**
   * tai42 (SQLite) and bare yoga at 1 connection, a short window each after the rounds:
   * latency with no queue. Exact latencies (every response timed), as autocannon's
   * histogram has whole milliseconds only.
   */
  oneConnection: {
    settings: BenchSettings["dispatch"]["oneConnection"];
    servers: Record<"tai42-sqlite" | "yoga", LoadFigures>;
    /** tai42 (SQLite) over bare yoga: req/s, and p50. */
    ratios: { "tai42-sqlite/yoga": number; "tai42-sqlite/yoga p50": number };
  };
}

interface Entry {
  name: string;
  child: Child;
  target: HttpTarget;
  rounds: LoadFigures[];
}

/**
 * Starts every server, then loads each in turn with the same autocannon settings; with
 * several rounds the order alternates (forward, then backward) so a drift in the
 * machine's background load does not favour one server.
 */
export async function dispatchScenario(
  settings: BenchSettings,
  dbs: ScratchDatabases,
  log: (line: string) => void,
): Promise<DispatchResult> {
  const s = settings.dispatch;
  const started: Child[] = [];
  const entries: Entry[] = [];
  const add = async <C extends Child>(
    name: string,
    child: Promise<C>,
    target: (c: C) => Promise<HttpTarget> | HttpTarget,
  ) => {
    const c = await child;
    started.push(c);
    entries.push({ name, child: c, target: await target(c), rounds: [] });
  };
  try {
    await add("raw", startRaw(), (c) => rawTarget(c.url));
    await add("yoga", startYoga(), (c) => yogaTarget(c.url));
    await add("mcp-stateless", startMcp("stateless"), (c) => mcpTarget(c.url));
    await add("mcp-session", startMcp("session"), async (c) =>
      mcpTarget(c.url, await openMcpSessions(c.url, s.mcpSessions)),
    );
    await add("tai42-sqlite", startTai42(dbs, "sqlite"), (c) => tai42Target(c.url, c.key));
    if (dbs.hasPostgres) await add("tai42-postgres", startTai42(dbs, "postgres"), (c) => tai42Target(c.url, c.key));
    // tai42's MCP door (`/mcp`, every run persisted) against the SDK peer in the same mode,
    // each on a server and database of its own so that its persisted count is its own.
    const mcpUrl = (graphqlUrl: string) => graphqlUrl.replace(/\/graphql$/, "/mcp");
    await add("tai42-mcp-stateless", startTai42(dbs, "sqlite", { label: "mcp-stateless" }), (c) =>
      mcpTarget(mcpUrl(c.url), [], c.key),
    );
    await add("tai42-mcp-session", startTai42(dbs, "sqlite", { label: "mcp-session" }), async (c) =>
      mcpTarget(mcpUrl(c.url), await openMcpSessions(mcpUrl(c.url), s.mcpSessions, c.key), c.key),
    );
    // Diagnostic, not a configuration: the same server with its two run writes answered
    // from memory, showing what the rest of the dispatch path costs.
    await add("tai42-nowrites", startTai42(dbs, "sqlite", { stubRunWrites: true }), (c) => tai42Target(c.url, c.key));
    for (const e of entries) await checkTarget(e.name, e.target);

    for (let r = 0; r < s.rounds; r++) {
      const order = r % 2 === 0 ? entries : [...entries].reverse();
      for (const e of order) {
        const f = await measureHttp(e.target, s);
        e.rounds.push(f);
        log(`  dispatch round ${r + 1}/${s.rounds} ${e.name.padEnd(15)} ${figuresLine(f)}`);
      }
    }

    const servers: Record<string, ServerFigures> = {};
    for (const e of entries) {
      servers[e.name] = { ...meanFigures(e.rounds), rounds: e.rounds };
      if (e.name.startsWith("tai42")) servers[e.name].persisted = await e.child.call("persisted");
    }
    const ratios: Record<string, number> = {};
    for (const t of Object.keys(servers).filter((n) => n.startsWith("tai42"))) {
      for (const b of ["raw", "yoga", "mcp-stateless", "mcp-session"])
        ratios[`${t}/${b}`] = round(servers[t].rps / servers[b].rps, 3);
      ratios[`${t}/yoga p99`] = round(servers[t].p99 / servers.yoga.p99, 3);
    }

    const one = { connections: 1, ...s.oneConnection };
    const at1 = {} as DispatchResult["oneConnection"]["servers"];
    for (const name of ["tai42-sqlite", "yoga"] as const) {
      const f = (at1[name] = await measureHttp(entries.find((e) => e.name === name)!.target, one, {
        exactLatency: true,
      }));
      log(`  dispatch 1 connection ${name.padEnd(12)} ${figuresLine(f)}`);
    }
    const oneConnection: DispatchResult["oneConnection"] = {
      settings: s.oneConnection,
      servers: at1,
      ratios: {
        "tai42-sqlite/yoga": round(at1["tai42-sqlite"].rps / at1.yoga.rps, 3),
        "tai42-sqlite/yoga p50": round(at1["tai42-sqlite"].p50 / at1.yoga.p50, 3),
      },
    };
    return { settings: s, servers, ratios, oneConnection };
  } finally {
    await Promise.all(started.map((c) => c.stop()));
  }
}
