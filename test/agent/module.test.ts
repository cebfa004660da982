import { afterEach, expect, it } from "vitest";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

let rt: TestRuntime | undefined;
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
});

it("should register an agent from a tool module importing the public package, and serve it on the surface and the agent door", async () => {
  await import("./modules/greeter-agent.ts");
  rt = await testRuntime();
  expect(rt.surface.resolve("greeter")).toMatchObject({ origin: "AGENT", inputSchema: { required: ["name"] } });
  const run = await rt.dispatcher.run({ tool: "greeter", input: { name: "Ada" }, caller: as("USER"), door: "cli" });
  expect(run).toMatchObject({ status: "SUCCEEDED", data: "Hello, Ada!" });
  const done = await rt.agents.run({ agent: "greeter", options: { name: "Grace" }, caller: as("USER") });
  expect(done.final).toMatchObject({ type: "message_final", text: "Hello, Grace!", seq: 1 });
});
