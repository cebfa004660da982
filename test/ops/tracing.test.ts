import { createServer } from "node:http";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { ToolError } from "../../src/errors.ts";
import { startTracing } from "../../src/ops/tracing.ts";
import { Secrets } from "../../src/secrets/secrets.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * OpenTelemetry spans (docs/deploy.md §"Traces"): one per run and one per attempt through
 * the chokepoint, the monitor extension's spans and child runs as children of the attempt
 * they run in, and nothing secret in any of them. An in-memory exporter stands in for the
 * OTLP collector.
 */
const TOKEN = "otel-secret-token-8f3a";

function tools(): App {
  const app = new App();
  app.tool(
    { name: "leaky", description: "Fails naming its token.", input: z.object({ token: z.string() }) },
    ({ token }) => {
      throw new ToolError(`upstream refused token ${token}`, { kind: "UPSTREAM" });
    },
  );
  app.tool(
    { name: "vault", description: "A secret-tier tool.", input: z.object({ pin: z.string() }), tier: "secret" },
    ({ pin }) => `opened with ${pin}`,
  );
  app.tool(
    { name: "parent", description: "Runs echo as a child run.", input: z.object({}) },
    async (_i, ctx) => (await ctx.runTool("echo", { text: "from the parent" })).content,
  );
  return app;
}

const byName = (spans: ReadableSpan[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const idOf = (s: ReadableSpan) => s.spanContext().spanId;

describe("OpenTelemetry traces of runs", () => {
  let rt: TestRuntime | undefined;
  // A runtime's close shuts its exporter down: each test has its own.
  let exporter: InMemorySpanExporter;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
  });
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
    delete process.env.OPS_OTEL_TOKEN;
  });

  it("should export a span per run and a child span per attempt, with the run's outcome", async () => {
    rt = await testRuntime({ app: tools(), traceExporter: exporter });
    const run = await rt.dispatcher.run({ tool: "flaky", input: { failures: 1 }, caller: as("USER"), door: "graphql" });
    expect(run.status).toBe("SUCCEEDED");
    const spans = exporter.getFinishedSpans();
    const [runSpan] = byName(spans, "tai42.run flaky");
    const attempts = byName(spans, "tai42.attempt flaky");
    expect(runSpan.attributes).toMatchObject({
      "tai42.tool": "flaky",
      "tai42.door": "graphql",
      "tai42.caller.role": "USER",
      "tai42.run.id": run.id,
      "tai42.run.status": "SUCCEEDED",
      "tai42.attempts": 2,
      "tai42.tier": "read",
    });
    expect(attempts.map((a) => a.attributes["tai42.attempt"])).toEqual([1, 2]);
    expect(attempts.map((a) => a.status.code)).toEqual([2, 1]); // ERROR, then OK
    expect(attempts[0].attributes["tai42.error.kind"]).toBe("UNAVAILABLE");
    for (const a of attempts) {
      expect(parentOf(a)).toBe(idOf(runSpan));
      expect(a.spanContext().traceId).toBe(runSpan.spanContext().traceId);
    }
  });

  it("should make a child run's span and a monitor span children of the attempt they run in", async () => {
    rt = await testRuntime({ app: tools(), traceExporter: exporter });
    await rt.manifests.put(
      { name: "monitored", document: { extensions: { echo: ["monitor"] } } },
      undefined,
      as("ADMIN"),
    );
    await rt.manifests.activate("monitored", as("ADMIN"));
    expect(
      (
        await rt.dispatcher.run({
          tool: "echo_monitor",
          input: { text: "watched" },
          caller: as("USER"),
          door: "graphql",
        })
      ).status,
    ).toBe("SUCCEEDED");
    expect((await rt.dispatcher.run({ tool: "parent", input: {}, caller: as("USER"), door: "graphql" })).status).toBe(
      "SUCCEEDED",
    );
    const spans = exporter.getFinishedSpans();
    const [monitored] = byName(spans, "tai42.attempt echo_monitor");
    const [monitor] = byName(spans, "tai42.monitor");
    expect(parentOf(monitor)).toBe(idOf(monitored));
    expect(monitor.attributes).toMatchObject({
      "tai42.tool": "echo",
      "tai42.attempt": 1,
      "tai42.span.status": "SUCCEEDED",
    });

    const [parentAttempt] = byName(spans, "tai42.attempt parent");
    const [childRun] = byName(spans, "tai42.run echo").filter((s) => s.attributes["tai42.run.parent_id"] !== undefined);
    expect(parentOf(childRun)).toBe(idOf(parentAttempt));
    expect(childRun.attributes).toMatchObject({ "tai42.door": "extension" });
  });

  it("should never put a secret-tier input or output, or a resolved !ENV value, into a span", async () => {
    process.env.OPS_OTEL_TOKEN = TOKEN;
    rt = await testRuntime({ app: tools(), traceExporter: exporter });
    await rt.presets.create(
      {
        name: "leaky_env",
        description: "leaky with the token from the environment",
        baseTool: "leaky",
        fixedKwargs: { token: "!ENV OPS_OTEL_TOKEN" },
      },
      as("ADMIN"),
    );
    const leaked = await rt.dispatcher.run({ tool: "leaky_env", input: {}, caller: as("ADMIN"), door: "graphql" });
    expect(leaked).toMatchObject({
      status: "FAILED",
      errorKind: "UPSTREAM",
      errorMessage: "upstream refused token [redacted]",
    });
    expect(
      (
        await rt.dispatcher.run({
          tool: "vault",
          input: { pin: "pin-4242-secret" },
          caller: as("ADMIN"),
          door: "graphql",
        })
      ).status,
    ).toBe("SUCCEEDED");

    const spans = exporter.getFinishedSpans();
    expect(byName(spans, "tai42.run leaky_env")[0].status.message).toBe("upstream refused token [redacted]");
    const everything = JSON.stringify(
      spans.map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events })),
    );
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain("pin-4242-secret");
  });

  it("should send the spans over OTLP/HTTP to the configured endpoint, flushed when the runtime closes", async () => {
    const received: { path: string; body: string }[] = [];
    const collector = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ path: req.url ?? "", body });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(collector.address() as { port: number }).port}/v1/traces`;
      const traced = await testRuntime({ app: tools(), config: { otlpTracesUrl: url } });
      await traced.dispatcher.run({ tool: "echo", input: { text: "exported" }, caller: as("USER"), door: "graphql" });
      await traced.dispose();
      expect(received.map((r) => r.path)).toContain("/v1/traces");
      const all = received.map((r) => r.body).join("");
      expect(all).toContain("tai42.run echo");
      expect(all).toContain("tai42.attempt echo");
    } finally {
      await new Promise((r) => collector.close(r));
    }
  });

  it("should be off without an endpoint or an exporter: nothing is started", async () => {
    expect(await startTracing({ instanceId: "i" }, new Secrets())).toBeNull();
    rt = await testRuntime({ app: tools() });
    await rt.dispatcher.run({ tool: "echo", input: { text: "untraced" }, caller: as("USER"), door: "graphql" });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
