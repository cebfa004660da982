import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newRun, type RunRecord } from "../../src/dispatch/run-record.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * On SQLite the run log writes on the connection Prisma's adapter holds
 * (`db/sqlite-driver.ts`): a batch must never land inside a transaction of Prisma's that
 * is open on that connection, or that transaction's rollback would undo it.
 */
describe("the run log beside a Prisma transaction", () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await testRuntime();
  });
  afterEach(() => rt.dispose());

  const run = (): RunRecord => ({
    ...newRun({ tool: "t", input: {}, door: "runtime", callerRole: "USER", callerKey: null }),
    tier: "read",
  });

  it("should keep a run written while a Prisma transaction is open when that transaction rolls back", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let opened!: () => void;
    const isOpen = new Promise<void>((r) => (opened = r));
    const inPrisma = run();
    const prismaTx = rt.db
      .$transaction(async (tx) => {
        await tx.run.create({
          data: {
            id: inPrisma.id,
            tool: "t",
            status: "RUNNING",
            content: [],
            door: "runtime",
            callerRole: "USER",
            instanceId: rt.instanceId,
          },
        });
        opened();
        await gate;
        throw new Error("rolled back on purpose");
      })
      .catch((e: Error) => e.message);
    await isOpen;
    const logged = run();
    const writing = rt.runs.start(logged, null, rt.instanceId);
    // The writer starts its batch at the end of this turn (setImmediate, FIFO): one turn
    // later the batch is under way, waiting for the connection Prisma's transaction holds.
    await new Promise((r) => setImmediate(r));
    release();
    expect(await prismaTx).toBe("rolled back on purpose");
    expect((await writing)?.type).toBe("RUN_STARTED");
    expect(await rt.runs.get(inPrisma.id)).toBeNull();
    expect((await rt.runs.get(logged.id))?.status).toBe("RUNNING");
  });
});
