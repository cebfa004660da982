import { createHmac } from "node:crypto";
import { z } from "zod";
import type { App } from "../app.ts";
import type { Db } from "../db/client.ts";
import { ToolError } from "../errors.ts";
import { sleep } from "../dispatch/retry-loop.ts";

/**
 * The demo tools the embedded default serves: a handful of useful tools across all four
 * tiers. They are ordinary tools, registered on a runtime-owned handle so that each
 * runtime's key-value store uses its own database.
 */
export function registerDemoTools(app: App, db: Db, env: NodeJS.ProcessEnv = process.env): void {
  app.currentModule = "demo";
  app.tool(
    {
      name: "echo",
      label: "Echo",
      description: "Return the given text unchanged. Useful to check that the platform is up.",
      input: z.object({ text: z.string().max(100_000) }),
    },
    ({ text }) => text,
  );

  app.tool(
    {
      name: "calculate",
      label: "Calculator",
      description: "Apply an arithmetic operation (add, subtract, multiply, divide, power) to two numbers.",
      input: z.object({ op: z.enum(["add", "subtract", "multiply", "divide", "power"]), a: z.number(), b: z.number() }),
      output: z.object({ result: z.number() }),
    },
    ({ op, a, b }) => {
      if (op === "divide" && b === 0) throw new ToolError("cannot divide by zero", { kind: "INVALID_INPUT" });
      const result = { add: a + b, subtract: a - b, multiply: a * b, divide: a / b, power: a ** b }[op];
      if (!Number.isFinite(result))
        throw new ToolError(`the result of ${op} is not a finite number`, { kind: "INVALID_INPUT" });
      return { result };
    },
  );

  app.tool(
    {
      name: "clock",
      label: "Clock",
      description: "Tell the current date and time, in UTC and in an optional IANA time zone such as Europe/Paris.",
      input: z.object({ timeZone: z.string().optional() }),
    },
    ({ timeZone }) => {
      const now = new Date();
      let local: string | undefined;
      if (timeZone) {
        try {
          local = new Intl.DateTimeFormat("en-GB", { timeZone, dateStyle: "full", timeStyle: "long" }).format(now);
        } catch {
          throw new ToolError(`unknown time zone "${timeZone}"`, { kind: "INVALID_INPUT" });
        }
      }
      return { utc: now.toISOString(), epochMs: now.getTime(), ...(timeZone ? { timeZone, local } : {}) };
    },
  );

  app.tool(
    {
      name: "sleep",
      label: "Sleep",
      description: "Wait for the given number of seconds, then report how long it waited. Stops early when cancelled.",
      input: z.object({ seconds: z.number().min(0).max(300) }),
      timeoutSeconds: 300,
    },
    async ({ seconds }, ctx) => {
      await sleep(seconds * 1000, ctx.signal);
      return { sleptSeconds: seconds };
    },
  );

  app.tool(
    {
      name: "flaky",
      label: "Flaky service",
      description:
        "Simulate a service that is unavailable for the first `failures` attempts of a run, then answers. Retries up to 4 attempts.",
      input: z.object({ failures: z.number().int().min(0).max(10) }),
      retry: {
        maxAttempts: 4,
        idempotent: true,
        retryable: true,
        backoff: { initialSeconds: 0.05, multiplier: 2, capSeconds: 1 },
      },
    },
    ({ failures }, ctx) => {
      if (ctx.attempt <= failures)
        throw new ToolError(`service unavailable (attempt ${ctx.attempt})`, { kind: "UNAVAILABLE" });
      return { answeredOnAttempt: ctx.attempt };
    },
  );

  app.tool(
    {
      name: "kv_put",
      label: "Store a value",
      description:
        "Store a JSON value under a key in the persistent demo key-value store, replacing any previous value.",
      input: z.object({ key: z.string().min(1).max(200), value: z.json() }),
      tier: "write",
      executionMode: "sequential",
    },
    async ({ key, value }) => {
      const row = await db.kvEntry.upsert({
        where: { key },
        create: { key, value: value as never },
        update: { value: value as never },
      });
      return { key: row.key, updatedAt: row.updatedAt.toISOString() };
    },
  );

  app.tool(
    {
      name: "kv_get",
      label: "Read a value",
      description: "Read the JSON value stored under a key in the demo key-value store.",
      input: z.object({ key: z.string().min(1).max(200) }),
    },
    async ({ key }) => {
      const row = await db.kvEntry.findUnique({ where: { key } });
      if (!row) throw new ToolError(`no value is stored under "${key}"`, { kind: "NOT_FOUND" });
      return { key, value: row.value, updatedAt: row.updatedAt.toISOString() };
    },
  );

  app.tool(
    {
      name: "admin_stats",
      label: "Platform statistics",
      description: "Count runs by status and tool, and active API keys by role. Admin only.",
      input: z.object({}),
      tier: "fenced",
    },
    async () => {
      const [byStatus, byTool, keys] = await Promise.all([
        db.run.groupBy({ by: ["status"], _count: { _all: true } }),
        db.run.groupBy({ by: ["tool"], _count: { _all: true }, orderBy: { _count: { tool: "desc" } }, take: 10 }),
        db.apiKey.groupBy({ by: ["role"], where: { revokedAt: null }, _count: { _all: true } }),
      ]);
      return {
        runsByStatus: Object.fromEntries(byStatus.map((r) => [r.status, r._count._all])),
        topTools: byTool.map((r) => ({ tool: r.tool, runs: r._count._all })),
        activeKeysByRole: Object.fromEntries(keys.map((r) => [r.role, r._count._all])),
      };
    },
  );

  app.tool(
    {
      name: "sign_message",
      label: "Sign a message",
      description:
        "Sign a message with HMAC-SHA256 using the configured credential (TAI_DEMO_SIGNING_KEY). Secret tier: inputs and outputs are never stored or published.",
      input: z.object({ message: z.string().max(100_000) }),
      tier: "secret",
    },
    ({ message }) => {
      const credential = env.TAI_DEMO_SIGNING_KEY;
      if (!credential)
        throw new ToolError("the signing credential is not configured (set TAI_DEMO_SIGNING_KEY)", {
          kind: "UNAVAILABLE",
        });
      return { algorithm: "HMAC-SHA256", signature: createHmac("sha256", credential).update(message).digest("hex") };
    },
  );
  app.currentModule = "inline";
}
