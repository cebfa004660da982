import { describe, expect, it } from "vitest";
import type { AgentRunRecord } from "../../src/agent/agent-runs.ts";
import { admitFork, markOf, withMark } from "../../src/agent/fork.ts";
import { as } from "../helpers/runtime.ts";

/**
 * A stored agent run of the USER test key (agent runs record the key by name), failed with a thread mark, unless
 * overridden.
 */
const record = (over: Partial<AgentRunRecord> = {}): AgentRunRecord => ({
  id: "run-1",
  agent: "tools_agent",
  threadId: "thread-1",
  status: "FAILED",
  input: { userMessage: "first try", toolNames: ["echo"], resume: { x: 1 }, resumeCheckpointId: "older" },
  final: null,
  callerRole: "USER",
  callerKey: "test-user",
  checkpoint: { mark: 7 },
  startedAt: new Date(0).toISOString(),
  finishedAt: null,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  ...over,
});

/** admitFork over a store holding `runs`. */
function admit(runs: AgentRunRecord[], options: Record<string, unknown>, caller = as("USER"), agent?: string) {
  const store = { get: async (id: string) => runs.find((r) => r.id === id) ?? null };
  return admitFork({ store } as never, { agent, options: options as never, caller }, {
    resumeCheckpointId: "run-1",
    ...options,
  } as never);
}

describe("admitting a fork past a failed or cancelled run", () => {
  it("should continue the run's thread from its mark with its options, minus resume fields, the fork's own overriding", async () => {
    const admitted = await admit([record()], { userMessage: "second try" });
    expect(admitted.fork.mark).toBe(7);
    expect(admitted.fork.run.id).toBe("run-1");
    expect(admitted.agent).toBe("tools_agent");
    expect(admitted.options).toEqual({
      userMessage: "second try",
      toolNames: ["echo"],
      resumeCheckpointId: "run-1",
      threadId: "thread-1",
    });
  });

  it("should fork a cancelled run too, and let the fork name the same thread", async () => {
    const admitted = await admit([record({ status: "CANCELLED" })], { threadId: "thread-1" });
    expect(admitted.options.threadId).toBe("thread-1");
  });

  it("should answer the same NOT_FOUND for an unknown run, a run without thread, and another caller's run", async () => {
    await expect(admit([], {})).rejects.toMatchObject({ code: "NOT_FOUND", message: 'no checkpoint "run-1"' });
    await expect(admit([record({ threadId: null })], {})).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: 'no checkpoint "run-1"',
    });
    const someoneElse = { ...as("USER"), keyId: "key-other", keyName: "other" };
    await expect(admit([record()], {}, someoneElse)).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: 'no checkpoint "run-1"',
    });
  });

  it("should let an ADMIN fork any caller's run", async () => {
    expect((await admit([record()], {}, as("ADMIN"))).fork.mark).toBe(7);
  });

  it("should refuse a fork into another thread at /resumeCheckpointId", async () => {
    await expect(admit([record()], { threadId: "thread-2" })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/resumeCheckpointId" }],
    });
  });

  it("should refuse a fork that names another agent at /agent", async () => {
    await expect(admit([record()], {}, as("USER"), "other_agent")).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "/agent", message: 'must be "tools_agent"' }],
    });
  });

  it("should refuse, as CONFLICT, a run that did not fail or was not cancelled, pointing a paused one to resume", async () => {
    await expect(admit([record({ status: "SUCCEEDED" })], {})).rejects.toMatchObject({
      code: "CONFLICT",
      message: "run run-1 is SUCCEEDED: only a failed or cancelled run is forked past",
    });
    for (const status of ["INTERRUPTED", "SUSPENDED", "ASKED"] as const) {
      await expect(admit([record({ status })], {})).rejects.toMatchObject({
        code: "CONFLICT",
        message: expect.stringContaining("a paused run continues with resume"),
      });
    }
  });

  it("should refuse, as CONFLICT, a run that stored no mark in its thread", async () => {
    await expect(admit([record({ checkpoint: null })], {})).rejects.toMatchObject({
      code: "CONFLICT",
      message: "run run-1 stored no checkpoint in its thread to fork from",
    });
  });
});

describe("a run's mark in its checkpoint", () => {
  it("should read the mark only when it is a number", () => {
    expect(markOf({ mark: 3, kind: "suspend" })).toBe(3);
    expect(markOf({ mark: "3" })).toBeNull();
    expect(markOf(null)).toBeNull();
    expect(markOf(undefined)).toBeNull();
  });

  it("should keep the mark beside what the checkpoint holds, and start one when there is none", () => {
    expect(withMark({ kind: "suspend", calls: [] }, 5)).toEqual({ kind: "suspend", calls: [], mark: 5 });
    expect(withMark(null, 5)).toEqual({ mark: 5 });
    expect(withMark(undefined, 0)).toEqual({ mark: 0 });
    expect(markOf(withMark({ instanceId: "i" }, 9))).toBe(9);
  });

  it("should leave the checkpoint as it is without a mark, or when it is not an object", () => {
    const checkpoint = { kind: "asks" };
    expect(withMark(checkpoint, undefined)).toBe(checkpoint);
    expect(withMark(["list"], 2)).toEqual(["list"]);
  });
});
