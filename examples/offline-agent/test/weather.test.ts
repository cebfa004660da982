// test/weather.test.ts — tests an agent over the weather tool, offline: `npx vitest run test/weather.test.ts`.
// It starts `tai serve` with the tool module and the scripted models (test/weather-model.ts),
// runs the agent over the GraphQL API with tai42/client, and checks the answer and the
// tool runs. No network, no API key: the model is the script.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTaiClient, type AgentRunInput, type StreamEvent, type TaiClient } from "tai42/client";

const project = join(dirname(fileURLToPath(import.meta.url)), "..");
const taiBin = join(dirname(createRequire(import.meta.url).resolve("tai42/package.json")), "bin", "tai.mjs");
const dataDir = mkdtempSync(join(tmpdir(), "weather-test-"));
const ADMIN_KEY = "weather-test-admin-key-0001";

let server: ChildProcess;
let tai: TaiClient;

beforeAll(async () => {
  server = spawn(process.execPath, [taiBin, "serve"], {
    cwd: project,
    env: {
      ...process.env,
      PORT: "0", // any free port: the URL is read from what serve prints
      DATABASE_URL: `file:${join(dataDir, "test.db")}`,
      TAI_MODULES: "tools/weather.ts,test/weather-model.ts",
      TAI_LLM_PROVIDER: "weather-script", // the default model of every run
      TAI_ADMIN_KEY: ADMIN_KEY,
      TAI_DEMO: "0",
      TAI_LOG: "silent",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    server.stdout!.on("data", (chunk) => {
      out += chunk;
      const listening = /listening on (\S+)/.exec(out);
      if (listening) resolve(listening[1]);
    });
    server.once("exit", (code) => reject(new Error(`tai serve exited (${code}) before listening`)));
  });
  tai = createTaiClient({ url: new URL("/graphql", url).href, apiKey: ADMIN_KEY });
}, 60_000);

afterAll(async () => {
  await tai?.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function runAgent(input: AgentRunInput): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of tai.agentStream(input)) events.push(event);
  return events;
}

const ofType = <T extends StreamEvent["__typename"]>(events: StreamEvent[], type: T) =>
  events.filter((e): e is Extract<StreamEvent, { __typename: T }> => e.__typename === type);

describe("the weather agent, with a scripted model", () => {
  it("should call the weather tool and answer from its result", async () => {
    const events = await runAgent({ userMessage: "What is the weather in Oslo?", toolNames: ["weather"] });

    expect(ofType(events, "ReasoningStep")[0].text).toBe("The user asks about Oslo: I will look it up.");
    expect(ofType(events, "ToolCallStep").map((e) => [e.tool, e.args])).toEqual([["weather", { city: "Oslo" }]]);
    const answer = ofType(events, "MessageFinal")[0];
    expect(answer.text).toBe("In Oslo it is rainy, 12 °C.");
    expect(ofType(events, "RunUsage")[0]).toMatchObject({ outputTokens: expect.any(Number), model: "scripted" });

    // The tool ran for real, through the same chokepoint as any caller's run.
    const runs = await tai.runs({ tool: "weather", parentRunId: answer.runId });
    expect(runs.edges.map((e) => [e.node.status, e.node.input, e.node.data])).toEqual([
      ["SUCCEEDED", { city: "Oslo" }, { city: "Oslo", forecast: "rainy", celsius: 12 }],
    ]);
  });

  it("should answer a follow-up question on the same thread, calling the tool again", async () => {
    const threadId = "weather-follow-up";
    await runAgent({ userMessage: "What is the weather in Oslo?", toolNames: ["weather"], threadId });
    const events = await runAgent({ userMessage: "And in Paris?", toolNames: ["weather"], threadId });

    expect(ofType(events, "ToolCallStep").map((e) => e.args)).toEqual([{ city: "Paris" }]);
    expect(ofType(events, "MessageFinal")[0].text).toBe("In Paris it is sunny, 24 °C.");
  });

  it("should play the YAML script when a run selects it, both calls in one turn", async () => {
    const events = await runAgent({
      userMessage: "Paris and Oslo?",
      toolNames: ["weather"],
      llmProvider: "weather-yaml",
    });

    expect(ofType(events, "ToolCallStep").map((e) => e.args)).toEqual([{ city: "Paris" }, { city: "Oslo" }]);
    expect(ofType(events, "ToolResultStep")).toHaveLength(2);
    const answer = ofType(events, "MessageFinal")[0];
    expect(answer.text).toBe("Paris is sunny and Oslo is rainy.");
    expect(
      ofType(events, "MessageDelta")
        .map((d) => d.text)
        .join(""),
    ).toBe(answer.text);
    const runs = await tai.runs({ tool: "weather", parentRunId: answer.runId });
    expect(runs.edges.map((e) => e.node.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
  });
});
