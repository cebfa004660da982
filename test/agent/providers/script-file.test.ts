import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../../src/app.ts";
import { DefinitionError, scriptedModel } from "../../../src/index.ts";
import { ProviderRegistry } from "../../../src/agent/providers/registry.ts";
import { testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { ofType, runToEnd, types } from "../support.ts";

const dir = mkdtempSync(join(tmpdir(), "tai42-scripts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

/** The refusal `fn` throws, as what a user reads: its rule, message and issue paths. */
function refusal(fn: () => unknown): { rule: string; message: string; paths: string[] } {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof DefinitionError)) throw e;
    return { rule: e.rule, message: e.message, paths: e.issues.map((i) => i.path) };
  }
  throw new Error("expected a refusal");
}

const YAML_SCRIPT = `# The model's side of the conversation
chunkDelayMs: 0
modelId: yaml-weather
turns:
  - reasoning: The user asks about Paris.
    toolCalls:
      - name: weather
        args: { city: Paris }
  - text: It is sunny in Paris.
`;

describe("a script file", () => {
  it("should play a YAML script's turns, selected per run by the provider name it is registered under", async () => {
    const app = new App();
    app.tool(
      { name: "weather", description: "The forecast of a city.", input: z.object({ city: z.string() }) },
      ({ city }) => ({ city, forecast: "sunny" }),
    );
    app.llmProvider("from-yaml", scriptedModel({ file: file("weather.yaml", YAML_SCRIPT) }));
    rt = await testRuntime({ app });
    const { log } = await runToEnd(rt.agents, {
      userMessage: "Paris?",
      toolNames: ["weather"],
      llmProvider: "from-yaml",
    });
    expect(types(log).filter((t) => t !== "message_delta")).toEqual([
      "reasoning_step",
      "tool_call_step",
      "tool_result_step",
      "run_usage",
      "message_final",
    ]);
    expect(ofType(log, "message_final")[0].text).toBe("It is sunny in Paris.");
    expect(ofType(log, "run_usage")[0].model).toBe("yaml-weather");
    expect(await rt.runs.list({ tool: "weather" }, 10)).toEqual([
      expect.objectContaining({ status: "SUCCEEDED", input: { city: "Paris" } }),
    ]);
    // Without llmProvider the run uses the default, the demo model: the script is per run.
    const demo = await runToEnd(rt.agents, { userMessage: "Paris?" });
    expect(ofType(demo.log, "message_final")[0].text).toMatch(/tai42 demo model|no tools/);
  });

  it("should read a JSON script, given as a path or a file URL", () => {
    const path = file("weather.json", JSON.stringify({ turns: [{ text: "Hello." }], chunkDelayMs: 5 }));
    expect(scriptedModel({ file: path }).modelId).toBe("scripted");
    expect(scriptedModel({ file: pathToFileURL(path), modelId: "mine" }).modelId).toBe("mine");
  });

  it("should refuse a script whose content does not fit, naming the file and the path of every problem", () => {
    const path = file(
      "bad.yaml",
      "turns:\n  - text: 42\n    toolCalls:\n      - args: { city: Paris }\n  - speak: hello\n",
    );
    const r = refusal(() => scriptedModel({ file: path }));
    expect(r.rule).toBe("provider.script");
    expect(r.message.startsWith(`script file ${path}: `)).toBe(true);
    expect(r.paths).toEqual(["/turns/0/text", "/turns/0/toolCalls/0/name", "/turns/1/speak"]);
  });

  it("should refuse a file that does not parse or cannot be read, naming the file and where", () => {
    const yaml = file("broken.yaml", "turns:\n  - text: [unclosed\n");
    expect(refusal(() => scriptedModel({ file: yaml })).message).toMatch(
      new RegExp(`^script file ${yaml}: is not valid YAML at line \\d+, column \\d+`),
    );
    const json = file("broken.json", '{"turns": [');
    expect(refusal(() => scriptedModel({ file: json })).message).toMatch(
      new RegExp(`^script file ${json}: is not valid JSON`),
    );
    expect(refusal(() => scriptedModel({ file: join(dir, "missing.yaml") })).message).toMatch(
      /missing\.yaml: cannot be read \(ENOENT\)/,
    );
    expect(refusal(() => scriptedModel({ file: file("empty.yaml", "turns: []\n") })).paths).toEqual(["/turns"]);
  });
});

describe("a script in code", () => {
  it("should be refused at registration when malformed, naming the path of the problem", () => {
    const bad = refusal(() =>
      scriptedModel({ turns: [{ text: "ok" }, { toolCalls: [{ name: "weather", args: "Paris" }] }] as never }),
    );
    expect(bad).toMatchObject({ rule: "provider.script", paths: ["/turns/1/toolCalls/0/args"] });
    expect(bad.message).toMatch(/^scriptedModel: \/turns\/1\/toolCalls\/0\/args: must be an object of arguments/);
    expect(refusal(() => scriptedModel({} as never)).message).toBe(
      "scriptedModel: takes exactly one of turns and file",
    );
    expect(refusal(() => scriptedModel({ turns: [] })).paths).toEqual(["/turns"]);
  });

  it("should refuse a registration that is not a model, a bad name, and a name registered twice", () => {
    const app = new App();
    expect(refusal(() => app.llmProvider("weather", { turns: [] } as never))).toMatchObject({
      rule: "provider.shape",
      paths: ["/model"],
    });
    expect(refusal(() => app.llmProvider("bad name", scriptedModel({ turns: [{ text: "x" }] })))).toMatchObject({
      rule: "provider.shape",
      paths: ["/name"],
    });
    app.llmProvider("twice", scriptedModel({ turns: [{ text: "x" }] }));
    expect(refusal(() => app.llmProvider("twice", scriptedModel({ turns: [{ text: "y" }] })))).toMatchObject({
      rule: "provider.duplicate-name",
      paths: ["/name"],
    });
  });
});

describe("the default provider", () => {
  it("should be the registered provider TAI_LLM_PROVIDER names, read when the run resolves it", () => {
    const app = new App();
    const registry = new ProviderRegistry(
      { TAI_LLM_PROVIDER: "weather-script", TAI_LLM_BASE_URL: "http://127.0.0.1:9/v1" },
      () => [app],
    );
    expect(registry.defaultName()).toBe("weather-script");
    expect(() => registry.check(undefined, undefined)).toThrow(
      'no LLM provider named "weather-script" (the default, from TAI_LLM_PROVIDER)',
    );
    app.llmProvider("weather-script", scriptedModel({ turns: [{ text: "x" }], modelId: "w-1" }));
    expect(registry.resolve(undefined, undefined)).toMatchObject({
      provider: "weather-script",
      model: { modelId: "w-1" },
    });
    expect(registry.list().map((p) => p.name)).toContain("weather-script");
    expect(new ProviderRegistry({}, () => [app]).defaultName()).toBe("scripted");
  });
});
