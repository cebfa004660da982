import { loadConfig } from "../../src/config.ts";
import { migrate } from "../../src/db/migrate.ts";
import type { RunEventType, RunRecord } from "../../src/dispatch/run-record.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { childArgs, nowMs, runChild } from "../lib/child-harness.ts";
import { Gate, streamText } from "../lib/stream-text.ts";
import { benchProvider, pacedProvider } from "./bench-model.ts";

/**
 * The server under test: tai42 as `tai serve` builds it (demo tools, default config,
 * run persistence on the given database, events through Redis when a URL is given), on
 * 127.0.0.1 on a free port. Bench-only instrumentation, outside the server code: the
 * moment each run event is handed to the bus (publish → receive latency), a scripted
 * streaming provider, dispatches in flight, and counts of what was persisted (so a
 * result can show every dispatch was stored).
 * With `stubRunWrites`, a diagnostic only: the run store's writes answer from memory, to
 * show what the rest of the dispatch path costs.
 */
runChild(async () => {
  const {
    databaseUrl,
    deltas = 1000,
    stubRunWrites = false,
    redisUrl,
    redisPrefix,
    keyName = "bench",
    secret,
    paced = { words: 40, chunkMs: 50 },
  } = childArgs<{
    databaseUrl: string;
    deltas?: number;
    stubRunWrites?: boolean;
    redisUrl?: string;
    redisPrefix?: string;
    /** Key names are unique in a database: instances sharing one name theirs apart. */
    keyName?: string;
    secret?: string;
    paced?: { words: number; chunkMs: number };
  }>();
  const config = {
    ...loadConfig({ DATABASE_URL: databaseUrl, TAI_LOG: "silent", REDIS_URL: redisUrl, TAI_REDIS_PREFIX: redisPrefix }),
    port: 0,
  };
  await migrate(config.databaseUrl);
  const rt = await createRuntime({ config, loadModules: false });
  const key = await rt.keys.create(keyName, "USER");

  const published = new Map<number, number>();
  const publish = rt.bus.publish.bind(rt.bus);
  rt.bus.publish = ((topic, payload) => {
    if (topic === "runEvent") published.set((payload as { seq: number }).seq, nowMs());
    publish(topic, payload);
  }) as typeof rt.bus.publish;

  if (stubRunWrites) stubRunStore(rt);

  // Dispatches in flight, so a scenario can wait until a load's leftovers are done (the
  // server goes on with requests whose connection the load generator closed) before it
  // measures the next window.
  let inFlight = 0;
  const run = rt.dispatcher.run.bind(rt.dispatcher);
  rt.dispatcher.run = async (req) => {
    inFlight++;
    try {
      return await run(req);
    } finally {
      inFlight--;
    }
  };

  const gate = new Gate();
  rt.agents.providers.register(benchProvider(streamText(deltas).text, gate));
  const pacedModel = pacedProvider(streamText(paced.words).text, paced.chunkMs, nowMs);
  rt.agents.providers.register(pacedModel.provider);
  if (secret) rt.secrets.remember(secret);

  const app = buildApp(rt);
  const url = await app.start(0, "127.0.0.1");
  return {
    url,
    commands: {
      key: () => key,
      /** Now, on the clock V8's CPU profiles use (monotonic microseconds). */
      mark: () => Number(process.hrtime.bigint() / 1000n),
      published: () => Object.fromEntries(published),
      resetPublished: () => published.clear(),
      inFlight: () => inFlight,
      persisted: async () => ({
        runs: await rt.db.run.count(),
        succeeded: await rt.db.run.count({ where: { status: "SUCCEEDED" } }),
        events: await rt.db.runEvent.count(),
      }),
      listeners: (topic) => rt.bus.listenerCount(topic as "runEvent" | "agentEvent"),
      arm: () => gate.arm(),
      waiting: () => gate.waiting,
      open: () => gate.open(nowMs()),
      written: () => pacedModel.written(),
      /**
       * Characters a delta lags by on this server (docs/agent-stream.md §2.4): the longest form of a secret it knows, −
       * 1.
       */
      lag: () => Math.max(0, rt.secrets.longest() - 1),
      runningAgentRun: async () =>
        (await rt.db.agentRun.findFirst({ where: { status: "RUNNING" }, select: { id: true } }))?.id ?? null,
    },
    async stop() {
      const closed = app.stop();
      await rt.close();
      await closed;
    },
  };
});

/** Diagnostic: the two run writes of a dispatch answer from memory (nothing is persisted). */
function stubRunStore(rt: Runtime): void {
  let seq = 0;
  const event = (run: RunRecord, type: RunEventType, at: string) => ({
    seq: ++seq,
    type,
    at,
    runId: run.id,
    tool: run.tool,
    run,
  });
  rt.runs.start = async (run) => event(run, "RUN_STARTED", run.startedAt);
  rt.runs.finish = async (run, _last, type = "RUN_FINISHED") =>
    event(run, type, run.finishedAt ?? new Date().toISOString());
}
