import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelMessage } from "ai";
import { checkThreadMessages, type ThreadStore } from "../../src/agent/threads.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/** The thread store of a runtime over a fresh database. */
describe("the thread store", () => {
  let rt: TestRuntime;
  let threads: ThreadStore;
  beforeEach(async () => {
    rt = await testRuntime();
    threads = rt.agents.threads;
  });
  afterEach(() => rt.dispose());

  const say = (role: "user" | "assistant", content: string) => ({ role, content });

  it("should append messages in order, creating the thread, and read them back with their times", async () => {
    await threads.append("t1", [say("user", "hi"), say("assistant", "hello")]);
    await threads.append("t1", [say("user", "again")]);
    const view = await threads.get("t1");
    expect(view!.id).toBe("t1");
    expect(view!.messages.map((m) => `${m.role}: ${m.content}`)).toEqual([
      "user: hi",
      "assistant: hello",
      "user: again",
    ]);
    expect(view!.messages.every((m) => !Number.isNaN(Date.parse(m.at)) && m.data === null)).toBe(true);
    expect(Date.parse(view!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(view!.createdAt));
  });

  it("should answer null for a thread that does not exist, and an empty history", async () => {
    expect(await threads.get("nope")).toBeNull();
    expect(await threads.history("nope")).toEqual([]);
    expect(await threads.mark("nope")).toBe(0);
  });

  it("should replay the stored model message of each row, and plain text as user or assistant otherwise", async () => {
    const call = {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "c1", toolName: "echo", input: { text: "x" } }],
    } as ModelMessage;
    await threads.append("t1", [
      say("user", "go"),
      { role: "assistant", content: "[call echo]", message: call },
      { role: "tool", content: "[echo → x]" },
    ]);
    expect(await threads.history("t1")).toEqual([
      { role: "user", content: "go" },
      call,
      { role: "user", content: "[echo → x]" },
    ]);
  });

  it("should keep the first owner of a thread, whoever ensures it later", async () => {
    expect(await threads.owner("t1")).toBeUndefined();
    expect(await threads.ensure("t1", "key-a")).toBe("key-a");
    expect(await threads.ensure("t1", "key-b")).toBe("key-a");
    expect(await threads.owner("t1")).toBe("key-a");
  });

  it("should drop a thread only while it has no messages", async () => {
    await threads.ensure("empty", "k");
    await threads.dropIfEmpty("empty");
    expect(await threads.owner("empty")).toBeUndefined();
    await threads.append("full", [say("user", "kept")]);
    await threads.dropIfEmpty("full");
    expect((await threads.get("full"))!.messages).toHaveLength(1);
  });

  it("should mark the last stored row, so a later read up to the mark is the thread as it stood", async () => {
    await threads.append("t1", [say("user", "one"), say("assistant", "two")]);
    const mark = await threads.mark("t1");
    await threads.append("t1", [say("user", "three")]);
    expect(mark).toBeGreaterThan(0);
    expect((await threads.history("t1", mark)).map((m) => m.content)).toEqual(["one", "two"]);
    expect((await threads.history("t1")).map((m) => m.content)).toEqual(["one", "two", "three"]);
  });

  it("should rewind to a mark: later rows leave the live branch but stay readable up to their own mark", async () => {
    await threads.append("t1", [say("user", "one")]);
    const fork = await threads.mark("t1");
    await threads.append("t1", [say("assistant", "abandoned")]);
    const abandoned = await threads.mark("t1");
    const rewound = await threads.rewind("t1", fork);
    await threads.append("t1", [say("assistant", "other answer")]);
    expect(rewound).toBeGreaterThan(abandoned);
    expect((await threads.history("t1")).map((m) => m.content)).toEqual(["one", "other answer"]);
    expect((await threads.get("t1"))!.messages.map((m) => m.content)).toEqual(["one", "other answer"]);
    expect((await threads.history("t1", abandoned)).map((m) => m.content)).toEqual(["one", "abandoned"]);
  });

  it("should apply successive rewinds, each to its own mark", async () => {
    await threads.append("t1", [say("user", "a")]);
    const first = await threads.mark("t1");
    await threads.append("t1", [say("user", "b")]);
    const second = await threads.mark("t1");
    await threads.append("t1", [say("user", "c")]);
    await threads.rewind("t1", second);
    await threads.append("t1", [say("user", "d")]);
    expect((await threads.history("t1")).map((m) => m.content)).toEqual(["a", "b", "d"]);
    await threads.rewind("t1", first);
    expect((await threads.history("t1")).map((m) => m.content)).toEqual(["a"]);
  });

  it("should drop a refused fork's rewind, restoring the branch, and never drop a message by that id", async () => {
    await threads.append("t1", [say("user", "a")]);
    const fork = await threads.mark("t1");
    await threads.append("t1", [say("user", "b")]);
    const rewind = await threads.rewind("t1", fork);
    await threads.dropRewind(rewind);
    expect((await threads.history("t1")).map((m) => m.content)).toEqual(["a", "b"]);
    await threads.dropRewind(await threads.mark("t1"));
    expect((await threads.history("t1")).map((m) => m.content)).toEqual(["a", "b"]);
  });
});

describe("checkThreadMessages: appendThreadMessages input", () => {
  const paths = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return ((e as { issues?: { path: string }[] }).issues ?? []).map((i) => i.path);
    }
    throw new Error("expected a refusal");
  };

  it("should accept a list of user and assistant messages as they are", () => {
    const messages = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "" },
    ];
    expect(checkThreadMessages(messages)).toBe(messages);
  });

  it("should refuse an empty list or something that is not a list, with BAD_USER_INPUT at /messages", () => {
    expect(() => checkThreadMessages([])).toThrow(expect.objectContaining({ code: "BAD_USER_INPUT" }));
    expect(paths(() => checkThreadMessages({ role: "user" }))).toEqual(["/messages"]);
  });

  it("should name every problem of every message at its path", () => {
    const issues = paths(() =>
      checkThreadMessages([{ role: "tool", content: "x" }, "text", { role: "user", content: 5, at: "now" }]),
    );
    expect(issues).toEqual(["/messages/0/role", "/messages/1", "/messages/2/content", "/messages/2/at"]);
  });
});
