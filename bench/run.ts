import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname } from "node:path";
import { ScratchDatabases } from "./lib/databases.ts";
import { formatResults } from "./report.ts";
import { checkTargets, type BenchResults } from "./targets.ts";
import { backgroundScenario } from "./scenarios/background.ts";
import { agentStreamScenario } from "./scenarios/agent-stream.ts";
import { connectorScenario } from "./scenarios/connector.ts";
import { dispatchScenario } from "./scenarios/dispatch.ts";
import { fanoutScenario } from "./scenarios/fanout.ts";
import { pgScaleScenario } from "./scenarios/pg-scale.ts";
import { eventOrderScenario } from "./scenarios/event-order.ts";
import { redactionScenario } from "./scenarios/redaction.ts";
import { runWritesScenario } from "./scenarios/run-writes.ts";
import { scalingScenario } from "./scenarios/scaling.ts";
import { startupScenario } from "./scenarios/startup.ts";
import { limitsScenario } from "./scenarios/limits.ts";
import { readSettings, withoutPassword } from "./settings.ts";

/**
 * `npm run bench`: every scenario in one run, each server in its own child process on
 * 127.0.0.1, every load bounded in time; results to bench/results/latest.json and a table
 * on stdout. See bench/README.md.
 */
const settings = readSettings(process.argv.slice(2), process.env);
const log = (line: string) => console.log(line);
const git = (...args: string[]) => {
  try {
    return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
};
const started = Date.now();
const results: BenchResults = {
  meta: {
    startedAt: new Date(started).toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? null,
    loadavgBefore: loadavg().map((l) => Math.round(l * 100) / 100),
    commit: git("rev-parse", "--short", "HEAD"),
    smoke: settings.smoke,
    quick: settings.quick,
    postgres: settings.postgresUrl !== null,
    settings: {
      ...settings,
      postgresUrl: withoutPassword(settings.postgresUrl),
      redisUrl: withoutPassword(settings.redisUrl),
    },
  },
  targets: [],
};
log(
  `tai42 bench on Node ${process.versions.node}${settings.smoke ? " (smoke settings)" : settings.quick ? " (quick settings)" : ""}: ${settings.scenarios.join(", ")}${settings.postgresUrl ? " (with PostgreSQL)" : ""}`,
);

const dbs = new ScratchDatabases(settings.postgresUrl);
try {
  for (const name of settings.scenarios) {
    const t = Date.now();
    log(`\n[${name}]`);
    if (name === "dispatch") results.dispatch = await dispatchScenario(settings, dbs, log);
    else if (name === "scaling") results.scaling = await scalingScenario(settings, dbs, log);
    else if (name === "fanout") results.fanout = await fanoutScenario(settings, dbs, log);
    else if (name === "agent") results.agent = await agentStreamScenario(settings, dbs, log);
    else if (name === "writes") results.writes = await runWritesScenario(settings, dbs, log);
    else if (name === "redaction") results.redaction = await redactionScenario(settings, dbs, log);
    else if (name === "connector") results.connector = await connectorScenario(settings, dbs, log);
    else if (name === "startup") results.startup = await startupScenario(settings, dbs, log);
    else if (name === "pg-scale") results.pgScale = await pgScaleScenario(settings, dbs, log);
    else if (name === "event-order") results.eventOrder = await eventOrderScenario(settings, dbs, log);
    else if (name === "background") results.background = await backgroundScenario(settings, dbs, log);
    else if (name === "limits") results.limits = await limitsScenario(settings, dbs, log);
    log(`  (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  }
} finally {
  dbs.dispose();
}
results.targets = checkTargets(results);
results.meta.finishedAt = new Date().toISOString();
results.meta.seconds = Math.round((Date.now() - started) / 100) / 10;
results.meta.loadavgAfter = loadavg().map((l) => Math.round(l * 100) / 100);
mkdirSync(dirname(settings.out), { recursive: true });
writeFileSync(settings.out, JSON.stringify(results, null, 2) + "\n");
log(formatResults(results));
log(`\nwritten to ${settings.out} in ${results.meta.seconds} s`);
