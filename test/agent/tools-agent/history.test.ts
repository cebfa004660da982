import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { closeDangling, forStorage } from "../../../src/agent/tools-agent/history.ts";
import { RunSecrets } from "../../../src/agent/tools-agent/run-secrets.ts";
import { Secrets } from "../../../src/secrets/secrets.ts";

const call = (toolCallId: string, toolName = "lookup", input: unknown = { q: toolCallId }) => ({
  type: "tool-call",
  toolCallId,
  toolName,
  input,
});
const result = (toolCallId: string, toolName = "lookup", value: unknown = "ok") => ({
  type: "tool-result",
  toolCallId,
  toolName,
  output: { type: "json", value },
});
const assistant = (...content: unknown[]) => ({ role: "assistant", content }) as ModelMessage;
const tool = (...content: unknown[]) => ({ role: "tool", content }) as ModelMessage;
const user = (text: string): ModelMessage => ({ role: "user", content: text });

/** The error results closeDangling added, by call id. */
const notRun = (history: ModelMessage[]) =>
  history.flatMap((m) =>
    m.role === "tool"
      ? (m.content as { toolCallId: string; output: { type: string; value: string } }[])
          .filter((p) => p.output.type === "error-text")
          .map((p) => p.toolCallId)
      : [],
  );

describe("closeDangling: every tool call of a history gets a result", () => {
  it("should leave a history whose calls are all answered as it is", () => {
    const history = [user("hi"), assistant(call("c1")), tool(result("c1")), assistant({ type: "text", text: "done" })];
    expect(closeDangling(history)).toEqual(history);
  });

  it("should answer the calls of an abandoned pause with a 'not run' error result right after them", () => {
    const history = [user("hi"), assistant(call("c1"), call("c2", "approve"))];
    const closed = closeDangling(history);
    expect(closed).toHaveLength(3);
    expect(closed[2]).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "lookup",
          output: { type: "error-text", value: "not run: the run paused at this call and was not resumed" },
        },
        {
          type: "tool-result",
          toolCallId: "c2",
          toolName: "approve",
          output: { type: "error-text", value: "not run: the run paused at this call and was not resumed" },
        },
      ],
    });
  });

  it("should answer only the calls the next tool message left unanswered", () => {
    const history = [assistant(call("c1"), call("c2")), tool(result("c1")), user("and then?")];
    const closed = closeDangling(history);
    expect(notRun(closed)).toEqual(["c2"]);
    expect(closed.map((m) => m.role)).toEqual(["assistant", "tool", "tool", "user"]);
  });

  it("should spare the last turn when asked to keep it (the one a resume answers), but still close earlier ones", () => {
    const history = [assistant(call("old")), user("new run"), assistant(call("pending"))];
    expect(notRun(closeDangling(history, true))).toEqual(["old"]);
    expect(notRun(closeDangling(history))).toEqual(["old", "pending"]);
  });

  it("should ignore assistant messages that are plain text or carry no calls", () => {
    const history = [
      { role: "assistant", content: "plain" } as ModelMessage,
      assistant({ type: "text", text: "t" }),
      assistant({ type: "reasoning", text: "r" }),
    ];
    expect(closeDangling(history)).toEqual(history);
  });

  it("should not change the history it is given", () => {
    const history = [assistant(call("c1"))];
    closeDangling(history);
    expect(history).toHaveLength(1);
  });
});

describe("forStorage: a model message as the thread stores it", () => {
  const secrets = (env: NodeJS.ProcessEnv = {}) => new RunSecrets(new Secrets({ env }).scope());

  it("should store a user message with its text as the display content", () => {
    expect(forStorage(user("hello"), new Set(), secrets())).toEqual({
      role: "user",
      content: "hello",
      message: user("hello"),
    });
  });

  it("should store a system message under the user role, keeping the model message", () => {
    const stored = forStorage({ role: "system", content: "be brief" }, new Set(), secrets());
    expect(stored.role).toBe("user");
    expect(stored.message).toEqual({ role: "system", content: "be brief" });
  });

  it("should show calls and results as readable lines, joined, and skip parts without text", () => {
    const stored = forStorage(
      assistant({ type: "text", text: "Let me look." }, call("c1", "lookup", { q: "bees" }), {
        type: "reasoning",
        text: "",
      }),
      new Set(),
      secrets(),
    );
    expect(stored.content).toBe('Let me look.\n[call lookup {"q":"bees"}]');
    expect(forStorage(tool(result("c1", "lookup", { n: 3 })), new Set(), secrets()).content).toBe('[lookup → {"n":3}]');
    const text = tool({
      type: "tool-result",
      toolCallId: "c2",
      toolName: "shout",
      output: { type: "text", value: "HI" },
    });
    expect(forStorage(text, new Set(), secrets()).content).toBe("[shout → HI]");
  });

  it("should redact a secret tool's arguments and results, and leave other tools' parts alone", () => {
    const asked = forStorage(
      assistant(call("c1", "vault_read", { name: "db" }), call("c2", "lookup", { q: "x" })),
      new Set(["vault_read"]),
      secrets(),
    );
    const parts = asked.message!.content as { toolName: string; input: unknown }[];
    expect(parts[0].input).toEqual({ redacted: "[redacted]" });
    expect(parts[1].input).toEqual({ q: "x" });
    const answered = forStorage(tool(result("c1", "vault_read", "hunter22")), new Set(["vault_read"]), secrets());
    expect(answered.message!.content).toEqual([
      { type: "tool-result", toolCallId: "c1", toolName: "vault_read", output: { type: "text", value: "[redacted]" } },
    ]);
    expect(answered.content).toBe("[vault_read → [redacted]]");
  });

  it("should scrub every secret the run learned from the stored text and message", () => {
    const run = secrets();
    run.learn("s3cr3t-for-db");
    const stored = forStorage(assistant({ type: "text", text: "The password is s3cr3t-for-db." }), new Set(), run);
    expect(stored.content).not.toContain("s3cr3t-for-db");
    expect(JSON.stringify(stored.message)).not.toContain("s3cr3t-for-db");
    expect(stored.content).toContain("[redacted]");
  });
});
