import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { until } from "../../graphql/support.ts";
import { startCli, type CliProcess } from "../../helpers/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "tai42-default-provider-"));
let server: CliProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("TAI_LLM_PROVIDER at tai serve's startup", () => {
  it("should warn once, naming the unknown provider and the known ones, and still serve", async () => {
    server = startCli(["serve"], {
      PORT: "0",
      DATABASE_URL: `file:${join(dir, "a.db")}`,
      TAI_LLM_PROVIDER: "weather-scrip",
      TAI_DEMO: "0",
    });
    await server.waitFor("listening on");
    // Written to stderr before "listening" goes to stdout; the two pipes may be read in either order.
    const warning =
      'warning: TAI_LLM_PROVIDER names no LLM provider "weather-scrip" (known: openai-compatible, anthropic, scripted)';
    await until("the warning on stderr", () => server!.stderr().includes(warning), 10_000);
    expect(server.stderr().split(warning).length - 1).toBe(1);
  }, 60_000);

  it("should say nothing of a provider a loaded module registers", async () => {
    server = startCli(["serve"], {
      PORT: "0",
      DATABASE_URL: `file:${join(dir, "b.db")}`,
      TAI_MODULES: "examples/offline-agent/tools/weather.ts,examples/offline-agent/test/weather-model.ts",
      TAI_LLM_PROVIDER: "weather-script",
      TAI_DEMO: "0",
    });
    await server.waitFor("listening on");
    expect(server.stderr()).not.toContain("TAI_LLM_PROVIDER");
  }, 60_000);
});
