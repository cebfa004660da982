// The example of README "Testing an agent offline" (examples/offline-agent/), run exactly as
// a user runs it: its test file starts `tai serve` (the compiled dist/, built before the
// suite) with the example's modules and runs the agent over the GraphQL API.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readmeBlock } from "../helpers/readme.ts";
import "../../examples/offline-agent/test/weather.test.ts";

describe("README's Testing an agent offline", () => {
  it("should show the example's model module as it is", () => {
    const module = readFileSync(new URL("../../examples/offline-agent/test/weather-model.ts", import.meta.url), "utf8");
    expect(readmeBlock("// test/weather-model.ts")).toBe(module);
  });
});
