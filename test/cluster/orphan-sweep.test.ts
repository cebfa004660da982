import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunFailedRecord } from "../../src/agent/events.ts";
import type { RunEventRecord } from "../../src/dispatch/run-record.ts";
import type { Bus } from "../../src/events/bus.ts";
import { createLogger } from "../../src/log.ts";
import { OrphanSweep } from "../../src/cluster/orphan-sweep.ts";
import { until } from "../graphql/support.ts";

const toolEvent = (runId: string) => ({ runId, type: "RUN_INTERRUPTED" }) as RunEventRecord;
const agentFailure = (runId: string): RunFailedRecord => ({
  type: "run_failed",
  final: true,
  seq: 2,
  runId,
  kind: "INTERNAL",
  message: "interrupted by restart",
});

/** A sweep over fakes: `orphans` is what each engine fails at the next sweep (then nothing). */
function fixture(orphans: { tools: string[]; agents: string[] }) {
  const calls: string[] = [];
  const published: [string, string][] = [];
  const lines: string[] = [];
  const sweep = new OrphanSweep({
    instances: {
      beat: async () => void calls.push("beat"),
      liveIds: async () => (calls.push("liveIds"), ["me"]),
    },
    runs: {
      settleOrphans: async (live: string[]) => (
        calls.push(`runs ${live}`),
        { events: orphans.tools.splice(0).map(toolEvent), queued: [] }
      ),
    },
    agents: {
      failInterrupted: async (live) => (calls.push(`agents ${live}`), orphans.agents.splice(0).map(agentFailure)),
    },
    bus: { publish: (channel: string, e: { runId: string }) => published.push([channel, e.runId]) } as unknown as Bus,
    log: createLogger({}, (line) => lines.push(line)),
    everyMs: 20,
  });
  return { sweep, calls, published, lines };
}

describe("the orphan sweep", () => {
  const started: OrphanSweep[] = [];
  afterEach(() => {
    started.splice(0).forEach((s) => s.stop());
    vi.useRealTimers();
  });

  it("should fail both engines' orphans at start, publish each closing record and return the tool runs", async () => {
    const f = fixture({ tools: ["t1"], agents: ["a1", "a2"] });
    started.push(f.sweep);
    expect(await f.sweep.start()).toEqual(["t1"]);
    expect(f.calls).toEqual(["liveIds", "runs me", "agents me"]);
    expect(f.published).toEqual([
      ["runEvent", "t1"],
      ["agentEvent", "a1"],
      ["agentEvent", "a2"],
    ]);
    expect(f.lines.map((l) => JSON.parse(l).msg)).toEqual([
      "runs of an instance that is gone were not re-run: their outcome is unknown",
      "agent runs interrupted by a restart were marked FAILED",
    ]);
  });

  it("should beat, then sweep, on every tick of one timer until stopped", async () => {
    // The sweep is driven by its interval: fake only that, so the fakes' promises still run.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const f = fixture({ tools: [], agents: [] });
    started.push(f.sweep);
    await f.sweep.start();
    expect(f.calls).toHaveLength(3);
    for (const n of [7, 11]) {
      await vi.advanceTimersByTimeAsync(20);
      await until(`tick ${(n - 3) / 4}`, () => f.calls.length === n);
    }
    expect(f.calls.slice(3)).toEqual([
      "beat",
      "liveIds",
      "runs me",
      "agents me",
      "beat",
      "liveIds",
      "runs me",
      "agents me",
    ]);
    f.sweep.stop();
    await vi.advanceTimersByTimeAsync(200);
    expect(f.calls).toHaveLength(11);
  });
});
