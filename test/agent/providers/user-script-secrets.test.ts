import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../../src/app.ts";
import { scriptedModel } from "../../../src/index.ts";
import { as, testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { ofType, runToEnd } from "../support.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

const PIN = "pin-7Q4Z-9921-XK";
const TOKEN = "tok-Hq83nZ2-0Lw9Pv";

describe("a user's scripted model calling a secret-tier tool (docs/security-model.md §3)", () => {
  it("should keep the call's arguments and result out of every event and row, even when the script repeats the result in its answer", async () => {
    const app = new App();
    app.tool(
      { name: "vault", description: "Trades a pin for a token.", input: z.object({ pin: z.string() }), tier: "secret" },
      () => ({ token: TOKEN }),
    );
    app.llmProvider(
      "vault-script",
      scriptedModel({
        turns: ({ turn, toolResults }) =>
          turn === 0
            ? { reasoning: "I will trade the pin.", toolCalls: [{ name: "vault", args: { pin: PIN } }] }
            : { text: `Your token is ${(toolResults[0].output as { token: string }).token}, from pin ${PIN}.` },
      }),
    );
    rt = await testRuntime({ app });
    const { started, log } = await runToEnd(
      rt.agents,
      { userMessage: "Get my token.", toolNames: ["vault"], llmProvider: "vault-script" },
      as("ADMIN"),
    );

    expect(ofType(log, "tool_result_step")[0]).toMatchObject({ tool: "vault", isError: false });
    const final = ofType(log, "message_final")[0];
    expect(final.text).toBe("Your token is [redacted], from pin [redacted].");
    const served = JSON.stringify(log);
    expect(served).not.toContain(PIN);
    expect(served).not.toContain(TOKEN);
    const rows = JSON.stringify([
      await rt.db.agentRun.findUnique({ where: { id: started.runId } }),
      await rt.db.run.findMany({ where: { tool: "vault" } }),
      await rt.db.agentEvent.findMany({ where: { runId: started.runId } }),
    ]);
    expect(rows).not.toContain(PIN);
    expect(rows).not.toContain(TOKEN);
  });

  it("should redact a secret of several words the script streams across several deltas", async () => {
    const phrase = "correct horse battery staple 42";
    const app = new App();
    app.tool({ name: "vault", description: "Reads the passphrase.", input: z.object({}), tier: "secret" }, () => ({
      phrase,
    }));
    app.llmProvider(
      "echo-phrase",
      scriptedModel({
        chunkDelayMs: 2,
        turns: ({ turn, toolResults }) =>
          turn === 0
            ? { toolCalls: [{ name: "vault" }] }
            : { text: `The phrase is ${(toolResults[0].output as { phrase: string }).phrase} indeed.` },
      }),
    );
    rt = await testRuntime({ app });
    const { log } = await runToEnd(
      rt.agents,
      { userMessage: "Phrase?", toolNames: ["vault"], llmProvider: "echo-phrase" },
      as("ADMIN"),
    );
    const final = ofType(log, "message_final")[0];
    expect(final.text).toBe("The phrase is [redacted] indeed.");
    expect(
      ofType(log, "message_delta")
        .map((d) => d.text)
        .join(""),
    ).toBe(final.text);
    expect(JSON.stringify(log)).not.toMatch(/horse battery/);
  });
});
