import { describe, expect, it } from "vitest";
import { AdmissionControl } from "../../src/limits/admission-control.ts";

/**
 * Admission control's database wait (docs/flow-control.md §5) tells a slow database from a paused process: a process
 * that was stopped (SIGSTOP, a frozen VM) finds every operation "waiting" as long as it was stopped.
 */
describe("admission control after a pause", () => {
  it("should shed on a database wait past the bound while running, but not the first dispatches after the process was held", async () => {
    let waitedMs = 0;
    const admission = new AdmissionControl(100, 2000, () => waitedMs);
    admission.enter()();
    // Running for 2.5 s with an operation unanswered all along: a slow database.
    const started = Date.now();
    while (Date.now() - started < 2500) {
      admission.enter()();
      await new Promise((r) => setTimeout(r, 50));
    }
    waitedMs = 2500;
    expect(() => admission.enter()).toThrow(/the database is slow/);
    // The event loop held 1.5 s (as a stopped process's is): its operations now read 4 s, but the process just woke.
    const held = Date.now();
    while (Date.now() - held < 1500);
    waitedMs = 4000;
    const leave = admission.enter();
    leave();
    expect(admission.refused).toBe(1);
  }, 10_000);
});
