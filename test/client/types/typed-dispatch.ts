// Typed tool calls (docs/client.md, "Typed tool calls"): `createTaiClient<TaiTools>()` with
// the map `tai types` writes (demo-tools.ts, `npm run client:types`). Compiled by
// test/client/types.test.ts against the sources, and by test/client/client-package.test.ts,
// with `tai42/client` read as `@tai42/client`, against the client package installed alone
// into an empty project, under --strict --exactOptionalPropertyTypes. Every
// `@ts-expect-error` below must be an error: a line that compiles fails tsc.
import { createTaiClient, type TaiClient, type ToolRun } from "tai42/client";
import type { TaiTools } from "./demo-tools.ts";

// The README's example: `apiKey` may be undefined (exactOptionalPropertyTypes).
const plain = createTaiClient({ url: "http://localhost:4000/graphql", apiKey: process.env.TAI_KEY });
const tai: TaiClient<TaiTools> = createTaiClient<TaiTools>({
  url: "http://localhost:4000/graphql",
  apiKey: process.env.TAI_KEY,
  transport: process.env.TAI_TRANSPORT === "sse" ? "sse" : undefined,
});

export async function untyped(): Promise<void> {
  // Without a map any tool name and JSON object compile, and `data` is unknown, as before.
  const run: ToolRun = await plain.dispatch("anything", { free: "form" }, { idempotencyKey: process.env.KEY });
  const data: unknown = run.data;
  void data;
}

export async function typed(): Promise<number | undefined> {
  const run = await tai.dispatch("calculate", { op: "power", a: 2, b: 10 });
  const result: number | undefined = run.data?.result;
  const status: ToolRun["status"] = run.status;
  void status;
  // An optional input property takes undefined.
  await tai.dispatch("clock", { timeZone: process.env.TZ });
  await tai.dispatch("kv_put", { key: "colour", value: { nested: ["teal", 1, null] } });

  // @ts-expect-error a wrong input type: `a` is a number
  await tai.dispatch("calculate", { op: "power", a: "2", b: 10 });
  // @ts-expect-error a value outside the schema's enum
  await tai.dispatch("calculate", { op: "root", a: 2, b: 10 });
  // @ts-expect-error a missing required field: `b`
  await tai.dispatch("calculate", { op: "power", a: 2 });
  // @ts-expect-error a property the schema does not have (additionalProperties: false)
  await tai.dispatch("calculate", { op: "power", a: 2, b: 10, c: 3 });
  // @ts-expect-error an unknown tool
  await tai.dispatch("calculator", { op: "power", a: 2, b: 10 });
  // @ts-expect-error an input that is not an object
  await tai.dispatch("echo", "hello");

  // @ts-expect-error `data` is null when the run produced none (a failed run): it must be checked first
  const unchecked: number = run.data.result;
  // @ts-expect-error `result` is a number, not a string
  const wrong: string | undefined = run.data?.result;
  // @ts-expect-error the output has no such field
  const missing: unknown = run.data?.value;
  const echoed = await tai.dispatch("echo", { text: "hi" });
  // @ts-expect-error a tool without an output schema types `data` unknown: it must be narrowed first
  const text: string = echoed.data.text;
  void [unchecked, wrong, missing, text];
  return result;
}
