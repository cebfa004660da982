import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { startChild } from "./lib/child.ts";
import { summarise, type CostRow } from "./lib/cpuprofile.ts";
import { ScratchDatabases } from "./lib/databases.ts";
import { waitFor } from "./lib/send.ts";
import { startTai42 } from "./lib/servers.ts";
import type { StreamRecord } from "./clients/subscriber-pool.ts";

/**
 * `tsx bench/profile-agent.ts [--runs=N]`: the agent stream to 1 subscriber (the agent
 * scenario's 1,000-delta run) under `node --cpu-prof`, summarised as bench:profile does.
 */
const runs = Number(process.argv.find((a) => a.startsWith("--runs="))?.split("=")[1] ?? 8);
const dir = resolve(".tmp", "bench-profile-agent");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const dbs = new ScratchDatabases(null);
const tai = await startTai42(dbs, "sqlite", { deltas: 1000, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
const pool = await startChild("stream clients", "clients/subscriber-pool.ts", {});
const query = `subscription S($input: AgentRunInput!) { agentStream(input: $input) { __typename ... on StreamEventBase { type final seq runId agent } ... on MessageDelta { text } ... on MessageFinal { text } } }`;
let window;
const rates: number[] = [];
try {
  const once = async () => {
    await pool.call("open", {
      url: tai.url,
      count: 1,
      query,
      variables: { input: { userMessage: "go", llmProvider: "bench-stream" } },
      connectionParams: { authorization: `Bearer ${tai.key}` },
      keyPath: ["agentStream", "seq"],
    });
    await waitFor(
      async () => (await pool.call<StreamRecord[]>("streams")).every((s) => s.completedAt !== null || s.error !== null),
      60_000,
    );
    const [s] = await pool.call<StreamRecord[]>("streams");
    await pool.call("closeAll");
    return (s.count / (s.lastAt! - s.subscribedAt)) * 1000;
  };
  await once();
  const fromUs = await tai.call<number>("mark");
  for (let i = 0; i < runs; i++) rates.push(await once());
  window = { fromUs, toUs: await tai.call<number>("mark") };
} finally {
  await pool.stop();
  await tai.stop();
  dbs.dispose();
}
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))!;
const summary = summarise(join(dir, file), process.cwd(), window, 400);
const show = (title: string, rows: CostRow[], n: number) => {
  console.log(`\n${title}\n${"self %".padStart(7)} ${"total %".padStart(8)}  function / package`);
  for (const r of rows.slice(0, n))
    console.log(`${r.selfPct.toFixed(1).padStart(7)} ${r.totalPct.toFixed(1).padStart(8)}  ${r.name}`);
};
console.log(`agent stream, 1 subscriber: ${rates.map((r) => r.toFixed(0)).join(", ")} events/s`);
console.log(`profiled ${summary.sampledMs} ms; idle ${summary.idlePct}%, GC ${summary.gcPct}%`);
show("By package or file", summary.byPackage, 25);
show("Functions by self time", summary.topSelf, 30);
show("Functions by inclusive time", summary.topTotal, 400);
