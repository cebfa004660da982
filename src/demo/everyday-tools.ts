import { z } from "zod";
import type { App } from "../app.ts";
import { ToolError } from "../errors.ts";

/** The everyday demo tools: echo, a calculator and a clock. */
export function registerEverydayTools(app: App): void {
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
}
