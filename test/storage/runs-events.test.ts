import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import type { RunEventRecord, RunRecord } from "../../src/dispatch/run-record.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { runStorageApp } from "./run-storage-fixture.ts";
import { settledLast } from "../../src/runlog/settle.ts";

/**
 * Run persistence, through the runtime, on SQLite by default and on PostgreSQL under
 * `npm run test:pg`.
 */

describe("run storage", () => {
  let rt: TestRuntime;
  let app: App;

  beforeEach(async () => {
    app = runStorageApp();
    rt = await testRuntime({ app });
  });
  afterEach(() => rt.dispose());

  describe("the event log", () => {
    it("should log RUN_STARTED, each ATTEMPT_FAILED and RUN_FINISHED with strictly increasing seq", async () => {
      const run = await rt.dispatcher.run({
        tool: "wobbly",
        input: { failures: 2 },
        caller: as("USER"),
        door: "runtime",
      });
      const events = await rt.runs.events({ runId: run.id }, 0);
      expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "ATTEMPT_FAILED", "ATTEMPT_FAILED", "RUN_FINISHED"]);
      for (let i = 1; i < events.length; i++) expect(events[i].seq).toBeGreaterThan(events[i - 1].seq);
      expect(events.every((e) => e.runId === run.id && e.tool === "wobbly")).toBe(true);
      expect(events[0].run.status).toBe("RUNNING");
      expect(events[2].run.attempts).toHaveLength(2);
      expect(events[3].run).toMatchObject({ status: "SUCCEEDED", data: { attempt: 3 } });
    });

    it("should read the retry policy of an event stored before it was named retryPolicy (stored as policy)", async () => {
      const run = await rt.dispatcher.run({
        tool: "wobbly",
        input: { failures: 1 },
        caller: as("USER"),
        door: "runtime",
      });
      for (const row of await rt.db.runEvent.findMany({ where: { runId: run.id } })) {
        const { retryPolicy, ...older } = row.snapshot as unknown as RunRecord;
        await rt.db.runEvent.update({
          where: { seq: row.seq },
          data: { snapshot: { ...older, policy: retryPolicy } as never },
        });
      }
      const events = await rt.runs.events({ runId: run.id }, 0);
      expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "ATTEMPT_FAILED", "RUN_FINISHED"]);
      for (const e of events) expect(e.run).not.toHaveProperty("policy");
      expect(events.map((e) => e.run.retryPolicy)).toEqual([run.retryPolicy, run.retryPolicy, run.retryPolicy]);
      expect(run.retryPolicy).toMatchObject({ maxAttempts: 3, declaredOn: "wobbly" });
    });

    it("should keep seq strictly increasing across concurrent runs, each event logged once", async () => {
      const runs = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          rt.dispatcher.run({ tool: "wobbly", input: { failures: i % 3 }, caller: as("USER"), door: "runtime" }),
        ),
      );
      const all = await rt.runs.events({ tool: "wobbly" }, 0);
      const seqs = all.map((e) => e.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]);
      // 12 starts + 12 finishes + 0+1+2 retries for each of the 4 groups of three.
      expect(all).toHaveLength(24 + 4 * 3);
      for (const run of runs) {
        const own = all.filter((e) => e.runId === run.id).map((e) => e.type);
        expect(own[0]).toBe("RUN_STARTED");
        expect(own.at(-1)).toBe("RUN_FINISHED");
      }
    });

    it("should replay only the events after a cursor, filtered by run or tool", async () => {
      const first = await rt.dispatcher.run({
        tool: "echo_json",
        input: { value: 1 },
        caller: as("USER"),
        door: "runtime",
      });
      const cursor = (await rt.runs.events({}, 0)).at(-1)!.seq;
      const second = await rt.dispatcher.run({
        tool: "wobbly",
        input: { failures: 0 },
        caller: as("USER"),
        door: "runtime",
      });
      const third = await rt.dispatcher.run({
        tool: "echo_json",
        input: { value: 3 },
        caller: as("USER"),
        door: "runtime",
      });

      const after = await rt.runs.events({}, cursor);
      expect(new Set(after.map((e) => e.runId))).toEqual(new Set([second.id, third.id]));
      expect(after.every((e) => e.seq > cursor)).toBe(true);
      expect((await rt.runs.events({ tool: "echo_json" }, cursor)).map((e) => e.runId)).toEqual([third.id, third.id]);
      expect(await rt.runs.events({ runId: first.id }, cursor)).toEqual([]);
      expect((await rt.runs.events({ runId: first.id }, 0)).map((e) => e.type)).toEqual([
        "RUN_STARTED",
        "RUN_FINISHED",
      ]);
    });

    it("should let a reader resuming after its last seq see every event while instances write at once", async () => {
      // Two instances on PostgreSQL (where sequence values can commit out of order); on
      // SQLite one (two connections in one process would only wait on each other).
      const other = rt.provider === "postgres" ? await testRuntime({ databaseUrl: rt.config.databaseUrl, app }) : rt;
      try {
        let writing = true;
        let cursor = 0;
        const seen: number[] = [];
        const reader = (async () => {
          while (writing) {
            // As every reader of the log does (dispatch/run-events.ts): up to a settled position, below which every
            // seq is committed or will never exist (run-lifecycle §9); a raw read may see a later seq commit first.
            const upTo = await settledLast(rt.runs, () => false);
            const page = await rt.runs.events({}, cursor, 1000, { all: true }, upTo);
            seen.push(...page.map((e) => e.seq));
            cursor = page.at(-1)?.seq ?? cursor;
            // SQLite answers synchronously: yield to timers and I/O, or the writers starve.
            await new Promise((r) => setTimeout(r, 1));
          }
        })();
        await Promise.all(
          Array.from({ length: 150 }, (_, i) =>
            (i % 2 ? rt : other).dispatcher.run({
              tool: "echo_json",
              input: { value: i },
              caller: as("USER"),
              door: "runtime",
            }),
          ),
        );
        writing = false;
        await reader;
        seen.push(...(await rt.runs.events({}, cursor)).map((e) => e.seq));
        const all = (await rt.runs.events({}, 0)).map((e) => e.seq);
        expect(all).toHaveLength(300);
        expect(
          all.filter((seq) => !seen.includes(seq)),
          "events committed behind the reader's cursor",
        ).toEqual([]);
      } finally {
        if (other !== rt) await other.close();
      }
    }, 60_000);

    it("should page through a long log with a limit without gaps or repeats", async () => {
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          rt.dispatcher.run({ tool: "echo_json", input: { value: i }, caller: as("USER"), door: "runtime" }),
        ),
      );
      const whole = await rt.runs.events({}, 0);
      const paged: RunEventRecord[] = [];
      for (let cursor = 0; ;) {
        const page = await rt.runs.events({}, cursor, 5);
        paged.push(...page);
        if (page.length < 5) break;
        cursor = page.at(-1)!.seq;
      }
      expect(paged.map((e) => e.seq)).toEqual(whole.map((e) => e.seq));
    });
  });
});
