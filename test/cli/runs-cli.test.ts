import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/dispatch/run-record.ts";
import { limiter, runCli } from "../helpers/cli.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// `tai tools run --background` and `tai runs wait|retry|settle` as real processes, against a
// database a running server (this runtime, with its queue workers) executes the queued runs of.
const SLOW = 120_000;
const limit = limiter(2);

let databaseUrl: string;
let rt: TestRuntime;
const tai = (args: string[]) => limit(() => runCli(args, { DATABASE_URL: databaseUrl }));

beforeAll(async () => {
  databaseUrl = (await freshDatabase("sqlite")).url;
  rt = await testRuntime({ databaseUrl });
});
afterAll(() => rt?.dispose());

describe("tai tools run --background, tai runs wait", () => {
  it(
    "should print the QUEUED run at once, and wait until the server ran it SUCCEEDED",
    async () => {
      const q = await tai(["tools", "run", "echo", "--input", '{"text":"from the queue"}', "--background"]);
      expect(q.code, q.stderr).toBe(0);
      const queued = JSON.parse(q.stdout) as RunRecord;
      expect(queued.status).toBe("QUEUED");
      const w = await tai(["runs", "wait", queued.id, "--timeout", "60"]);
      expect(w.code, w.stderr).toBe(0);
      expect(JSON.parse(w.stdout)).toMatchObject({ id: queued.id, status: "SUCCEEDED" });
      expect(w.stdout).toContain("from the queue");
    },
    SLOW,
  );

  it(
    "should exit 3 on --timeout with the run not ended, and 1 once it ended CANCELLED",
    async () => {
      const q = await tai(["tools", "run", "sleep", "--input", '{"seconds":120}', "--background"]);
      const queued = JSON.parse(q.stdout) as RunRecord;
      const w = await tai(["runs", "wait", queued.id, "--timeout", "1"]);
      expect(w.code, w.stderr).toBe(3);
      expect((JSON.parse(w.stdout) as RunRecord).status).toMatch(/^(QUEUED|RUNNING)$/);
      expect(w.stderr).toContain("timed out after 1s");
      await rt.dispatcher.cancel(queued.id);
      const after = await tai(["runs", "wait", queued.id]);
      expect(after.code).toBe(1);
      expect(JSON.parse(after.stdout)).toMatchObject({ status: "CANCELLED" });
      expect(after.stderr).toMatch(/^CANCELLED/);
    },
    SLOW,
  );

  it(
    "should refuse an unknown run NOT_FOUND (exit 2)",
    async () => {
      const w = await tai(["runs", "wait", "no-such-run"]);
      expect(w.code).toBe(2);
      expect(w.stderr).toContain("NOT_FOUND");
    },
    SLOW,
  );
});

describe("tai runs retry|settle", () => {
  it(
    "should refuse a run whose outcome is known CONFLICT, and a bad --status as usage, changing nothing",
    async () => {
      const done = await tai(["tools", "run", "echo", "--input", '{"text":"known"}']);
      const run = JSON.parse(done.stdout) as RunRecord;
      const retry = await tai(["runs", "retry", run.id]);
      expect(retry.code).toBe(2);
      expect(retry.stderr).toContain("CONFLICT");
      const settle = await tai(["runs", "settle", run.id, "--status", "FAILED", "--message", "no"]);
      expect(settle.code).toBe(2);
      expect(settle.stderr).toContain("CONFLICT");
      const bad = await tai(["runs", "settle", run.id, "--status", "RUNNING"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("SUCCEEDED, FAILED, CANCELLED");
      expect((await rt.runs.get(run.id))?.status).toBe("SUCCEEDED");
    },
    SLOW,
  );
});
