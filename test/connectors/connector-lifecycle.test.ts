import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { ToolError } from "../../src/errors.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { databaseText } from "../helpers/database-text.ts";
import { until } from "../graphql/support.ts";
import { fakeKinds } from "../fixtures/connector-kinds.ts";

const SECRET = "lifecycle-7f3a91c2-token";
const fake = fakeKinds("fake");
let rt: TestRuntime;
let other: TestRuntime | null = null;
const admin = as("ADMIN");

beforeAll(async () => {
  process.env.LIFECYCLE_TOKEN = SECRET;
  const app = new App();
  app.plugin({ name: "fake-kinds", connectors: { fake: fake.kind } });
  rt = await testRuntime({ app });
  await rt.connectors.put(admin, {
    name: "life",
    kind: "fake",
    settings: { upstream: "life", token: "!ENV LIFECYCLE_TOKEN", headers: { Authorization: "!ENV LIFECYCLE_TOKEN" } },
    tools: { echo: { retry: { maxAttempts: 3, idempotent: true, backoff: { initialSeconds: 0.01 } } } },
  });
}, 120_000);
afterAll(async () => {
  await other?.close();
  await rt?.dispose();
});

const up = () => fake.upstream("life");
const unavailable = () => new ToolError("the upstream hiccuped", { kind: "UNAVAILABLE" });

describe("connector calls and connections", () => {
  it("retries under the ADMIN's idempotency claim with the same idempotency key on every attempt", async () => {
    up().failCalls.push(unavailable(), unavailable());
    const before = up().calls.length;
    const run = await rt.dispatcher.run({
      tool: "life_echo",
      input: { text: "r" },
      caller: as("USER"),
      door: "runtime",
    });
    expect(run.status).toBe("SUCCEEDED");
    const calls = up().calls.slice(before);
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    expect(new Set(calls.map((c) => c.idempotencyKey))).toEqual(new Set([run.id]));
    expect(calls.every((c) => c.idempotent)).toBe(true);
  });

  it("does not retry a tool without a declared policy", async () => {
    up().failCalls.push(unavailable());
    const before = up().calls.length;
    const run = await rt.dispatcher.run({ tool: "life_write_thing", input: {}, caller: as("USER"), door: "runtime" });
    expect(run.status).toBe("FAILED");
    expect(run.errorKind).toBe("UNAVAILABLE");
    expect(up().calls.length - before).toBe(1);
  });

  it("marks the connector DOWN after lost and reconnects with backoff", async () => {
    const connects = up().connects;
    up().lose();
    expect(rt.connections.health("life").state).not.toBe("CONNECTED");
    await until("the reconnect", () => rt.connections.health("life").state === "CONNECTED", 10_000);
    expect(up().connects).toBe(connects + 1);
    const run = await rt.dispatcher.run({ tool: "life_write_thing", input: {}, caller: as("USER"), door: "runtime" });
    expect(run.status).toBe("SUCCEEDED");
  });

  it("fails a call UNAVAILABLE while the upstream is down, naming no setting's value", async () => {
    up().failConnect = new ToolError(`refused with ${SECRET}`, { kind: "UNAVAILABLE" });
    try {
      up().lose();
      await until("the connector down", () => rt.connections.health("life").state === "DOWN");
      const run = await rt.dispatcher.run({ tool: "life_write_thing", input: {}, caller: as("USER"), door: "runtime" });
      expect(run.status).toBe("FAILED");
      expect(run.errorKind).toBe("UNAVAILABLE");
      expect(run.errorMessage).toMatch(/connector "life" is unavailable/);
      expect(run.errorMessage).not.toContain(SECRET);
      expect(rt.connections.health("life").lastError ?? "").not.toContain(SECRET);
    } finally {
      up().failConnect = null;
    }
    await until("the reconnect", () => rt.connections.health("life").state === "CONNECTED", 40_000);
  }, 60_000);

  it("keeps /ready at 200 while a connector is DOWN: its health is on /metrics and the connector, not readiness", async () => {
    const server = buildApp(rt);
    const base = (await server.start(0, "127.0.0.1")).replace(/\/graphql$/, "");
    up().failConnect = new ToolError("the upstream is out", { kind: "UNAVAILABLE" });
    try {
      up().lose();
      await until("the connector down", () => rt.connections.health("life").state === "DOWN");
      const ready = await fetch(`${base}/ready`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { status: string }).status).toBe("ready");
      expect(await rt.metrics.text()).toMatch(/^tai42_connector_up\{connector="life"\} 0$/m);
    } finally {
      up().failConnect = null;
      await server.stop();
    }
    await until("the reconnect", () => rt.connections.health("life").state === "CONNECTED", 40_000);
  }, 60_000);

  it("serves the connector's metrics lines", async () => {
    const text = await rt.metrics.text();
    expect(text).toMatch(/^tai42_connector_up\{connector="life"\} 1$/m);
    expect(text).toMatch(/^tai42_connector_calls_total\{connector="life",outcome="ok"\} \d+$/m);
    expect(text).toMatch(/^tai42_connector_calls_total\{connector="life",outcome="UNAVAILABLE"\} \d+$/m);
  });

  it("shows a put and a refresh to a second runtime over the same database, with toolsChanged", async () => {
    const app = new App();
    app.plugin({ name: "fake-kinds", connectors: { fake: fake.kind } });
    other = await testRuntime({ app, databaseUrl: rt.config.databaseUrl, config: { syncSeconds: 0.1 } });
    expect(other.surface.resolve("life_echo")).toBeDefined();
    let changes = 0;
    other.bus.listen("toolsChanged", () => void changes++);
    await rt.connectors.put(admin, { name: "second", kind: "fake", settings: { upstream: "second" } });
    await until(
      "the other instance serves the new connector",
      () => other!.surface.resolve("second_echo") !== undefined,
    );
    expect(changes).toBeGreaterThan(0);
    fake.upstream("second").tools = [
      ...fake.upstream("second").tools,
      { ...fake.upstream("second").tools[0], name: "more" },
    ];
    await rt.connectors.refresh(admin, "second");
    await until(
      "the other instance serves the refreshed tool",
      () => other!.surface.resolve("second_more") !== undefined,
    );
    const run = await other.dispatcher.run({ tool: "second_more", input: {}, caller: as("USER"), door: "runtime" });
    expect(run.status).toBe("SUCCEEDED");
    expect(fake.upstream("second").calls.at(-1)?.tool).toBe("more");
  });

  it("never stores the resolved marker value in any byte of the database", async () => {
    expect(up().lastSettings?.token).toBe(SECRET);
    await rt.dispatcher.run({ tool: "life_echo", input: { text: "leak?" }, caller: as("USER"), door: "runtime" });
    const text = await databaseText(rt.config.databaseUrl);
    expect(text).toContain("!ENV LIFECYCLE_TOKEN");
    expect(text).not.toContain(SECRET);
    expect(rt.logLines.join("\n")).not.toContain(SECRET);
  });
});
