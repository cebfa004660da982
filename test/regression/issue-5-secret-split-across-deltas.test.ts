import { afterEach, expect, it } from "vitest";
import { z } from "zod";
import { Secrets } from "../../src/secrets/secrets.ts";
import { RunSecrets } from "../../src/agent/tools-agent/run-secrets.ts";
import type { StreamEvent } from "../../src/agent/events.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { agentTestApp } from "../agent/fixtures.ts";
import { ofType, runToEnd, types, useScript } from "../agent/support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const PASSPHRASE = "correct horse battery staple";

it("should not leak a secret tool's result that the model repeats across several MessageDeltas", async () => {
  const app = agentTestApp();
  app.tool(
    { name: "passphrase_read", description: "Reads the passphrase.", input: z.object({}), tier: "secret" },
    () => PASSPHRASE,
  );
  rt = await testRuntime({ app });
  const published: unknown[] = [];
  rt.bus.listen("agentEvent", (e) => published.push(e));
  useScript(rt.agents, "s", (view) =>
    view.prompt.at(-1)?.role === "tool"
      ? { text: `The passphrase is ${PASSPHRASE}.` }
      : { toolCalls: [{ toolName: "passphrase_read", input: {} }] },
  );
  const { started, log } = await runToEnd(
    rt.agents,
    { userMessage: "?", toolNames: ["passphrase_read"], llmProvider: "s" },
    as("ADMIN"),
  );
  expect(types(log).filter((t) => t !== "message_delta")).toEqual([
    "tool_call_step",
    "tool_result_step",
    "run_usage",
    "message_final",
  ]);
  // The deltas lag by a constant (docs/security-model.md §3); together they are the scrubbed answer.
  expect(
    ofType(log, "message_delta")
      .map((d) => d.text)
      .join(""),
  ).toBe("The passphrase is [redacted].");
  expect(ofType(log, "message_final")[0].text).toBe("The passphrase is [redacted].");
  const everything = JSON.stringify([log, published, await rt.agents.thread(started.threadId, as("ADMIN"))]);
  for (const word of ["horse", "battery", "staple"]) expect(everything).not.toContain(word);
});

it("should stream text that only looks like the start of a secret once the next chunk shows it is not", async () => {
  const secrets = new RunSecrets(new Secrets().scope());
  secrets.learn("hunter2-password");
  async function* deltas(): AsyncGenerator<StreamEvent> {
    for (const text of ["my ", "hun", "ter", "2-pass", "word is ", "hunt", "ing", " dogs"])
      yield { type: "message_delta", final: false, text, agent: null };
    yield { type: "message_final", final: true, text: "x", agent: null };
  }
  const out: StreamEvent[] = [];
  for await (const e of secrets.scrubStream(deltas())) out.push(e);
  const texts = out.filter((e) => e.type === "message_delta").map((e) => (e as { text: string }).text);
  expect(texts.join("")).toBe("my [redacted] is hunting dogs");
  expect(texts.some((t) => t.includes("hun") && !t.includes("hunting"))).toBe(false);
  expect(out.at(-1)).toEqual({ type: "message_final", final: true, text: "x", agent: null });
});
