import { describe, expect, it } from "vitest";
import { InFlight } from "../../src/runlog/in-flight.ts";

/** A run that settles when its controller aborts (with the abort reason), or when `end` is called. */
function run() {
  const controller = new AbortController();
  let end!: (value: string) => void;
  const done = new Promise<string>((resolve) => {
    end = resolve;
    controller.signal.addEventListener("abort", () => resolve(`aborted: ${String(controller.signal.reason)}`));
  });
  return { controller, done, end };
}

describe("runs in flight", () => {
  it("should track a run until it settles, resolved or rejected", async () => {
    const inflight = new InFlight<string>();
    const a = run();
    const failing = Promise.reject(new Error("boom"));
    inflight.add("a", a.controller, a.done);
    inflight.add("b", new AbortController(), failing);
    expect(inflight.size).toBe(2);
    await failing.catch(() => {});
    await Promise.resolve();
    expect(inflight.get("b")).toBeUndefined();
    a.end("ok");
    await a.done;
    await Promise.resolve();
    expect(inflight.size).toBe(0);
  });

  it("should keep a run added again under the same id when the earlier one settles", async () => {
    const inflight = new InFlight<string>();
    const first = run();
    const second = run();
    inflight.add("r", first.controller, first.done);
    inflight.add("r", second.controller, second.done);
    first.end("parked");
    await first.done;
    await Promise.resolve();
    expect(inflight.get("r")?.done).toBe(second.done);
  });

  it("should abort only a run it holds, with the reason given", async () => {
    const inflight = new InFlight<string>();
    const a = run();
    inflight.add("a", a.controller, a.done);
    expect(inflight.abort("other", "why")).toBe(false);
    expect(inflight.abort("a", "why")).toBe(true);
    expect(await a.done).toBe("aborted: why");
  });

  it("should refuse new runs once draining, and wait for runs that end within the grace", async () => {
    const inflight = new InFlight<string>();
    const a = run();
    inflight.add("a", a.controller, a.done);
    const drained = inflight.drain(5_000, "shutdown");
    expect(inflight.closing).toBe(true);
    a.end("finished");
    await drained;
    expect(await a.done).toBe("finished");
  });

  it("should abort the runs still going after the grace, and wait for them to settle", async () => {
    const inflight = new InFlight<string>();
    const a = run();
    inflight.add("a", a.controller, a.done);
    await inflight.drain(20, "shutdown");
    expect(await a.done).toBe("aborted: shutdown");
    expect(inflight.size).toBe(0);
  });
});
