import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { summarise, type CostRow } from "./lib/cpuprofile.ts";
import { ScratchDatabases } from "./lib/databases.ts";
import { measureHttp } from "./lib/load.ts";
import { startTai42 } from "./lib/servers.ts";
import { checkTarget, mcpTarget, openMcpSessions, tai42Target } from "./lib/targets.ts";
import { DEFAULT_PG } from "./settings.ts";

/**
 * `npm run bench:profile [-- --pg] [--seconds=N] [--connections=N] [--stub-run-writes] [--mcp=stateless|session]`:
 * runs the tai42 dispatch server under `node --cpu-prof`, loads it as the dispatch scenario
 * does (GraphQL `dispatch`, or with `--mcp` its MCP door's `tools/call`), and
 * names where the CPU went during the measured window (warm-up and start-up excluded).
 * Writes bench/results/profile.json; the raw .cpuprofile stays in .tmp/bench-profile/.
 */
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}`))?.split("=")[1];
const kind = process.argv.includes("--pg") ? "postgres" : "sqlite";
const seconds = Number(arg("seconds") ?? 10);
const connections = Number(arg("connections") ?? 50);
const dir = resolve(".tmp", "bench-profile");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

const dbs = new ScratchDatabases(kind === "postgres" ? (arg("pg") ?? DEFAULT_PG) : null);
const stubRunWrites = process.argv.includes("--stub-run-writes");
const mcp = arg("mcp");
if (mcp !== undefined && mcp !== "stateless" && mcp !== "session")
  throw new Error(`--mcp must be stateless or session (got "${mcp}")`);
const tai = await startTai42(dbs, kind, { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`], stubRunWrites });
let window;
let figures;
try {
  const mcpUrl = tai.url.replace(/\/graphql$/, "/mcp");
  const target = !mcp
    ? tai42Target(tai.url, tai.key)
    : mcpTarget(mcpUrl, mcp === "session" ? await openMcpSessions(mcpUrl, connections, tai.key) : [], tai.key);
  await checkTarget("tai42", target);
  await measureHttp(target, { connections, warmupSeconds: 0, durationSeconds: 3 });
  const fromUs = await tai.call<number>("mark");
  figures = await measureHttp(target, { connections, warmupSeconds: 0, durationSeconds: seconds });
  window = { fromUs, toUs: await tai.call<number>("mark") };
} finally {
  await tai.stop();
  dbs.dispose();
}
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
if (!file) throw new Error(`no .cpuprofile was written in ${dir}`);
const summary = summarise(join(dir, file), process.cwd(), window);
const show = (title: string, rows: CostRow[], n: number) => {
  console.log(`\n${title}\n${"self %".padStart(7)} ${"total %".padStart(8)}  function / package`);
  for (const r of rows.slice(0, n))
    console.log(`${r.selfPct.toFixed(1).padStart(7)} ${r.totalPct.toFixed(1).padStart(8)}  ${r.name}`);
};
console.log(
  `tai42 ${mcp ? `MCP door (${mcp})` : "dispatch"} on ${kind}${stubRunWrites ? " (run writes stubbed)" : ""}, ${connections} connections, ${seconds} s: ${figures.rps.toFixed(0)} req/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms`,
);
console.log(`profiled ${summary.sampledMs} ms of the measured window; idle ${summary.idlePct}%, GC ${summary.gcPct}%`);
show("By package or file (self time; total = inclusive)", summary.byPackage, 20);
show("Functions by self time", summary.topSelf, 25);
show("Functions by inclusive time", summary.topTotal, 25);
mkdirSync("bench/results", { recursive: true });
writeFileSync(
  "bench/results/profile.json",
  JSON.stringify(
    {
      at: new Date().toISOString(),
      database: kind,
      door: mcp ? `mcp-${mcp}` : "graphql",
      stubRunWrites,
      connections,
      seconds,
      figures,
      summary,
      profile: join(dir, file),
    },
    null,
    2,
  ),
);
