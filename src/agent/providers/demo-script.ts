import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { OfferedTool, ScriptedToolCall, ScriptedTurn, ScriptView } from "./scripted-model.ts";

/**
 * The demo "model" of the embedded default: a deterministic planner that reads the last
 * user message, calls the offered demo tools it recognises (arithmetic → calculate, time
 * → clock, "remember k is v" → kv_put, "recall k" → kv_get, "echo …" → echo, "ask me" →
 * ask_caller, a sub-agent named in the text), then answers from the tool results. It
 * needs no network and gives the same run for the same input.
 */
export function demoScript(view: ScriptView): ScriptedTurn {
  const { user, results } = readPrompt(view.prompt);
  if (view.responseFormat) {
    if (!results.length) {
      const calls = plan(user, view.tools);
      if (calls.length) return { reasoning: reasoningFor(user, calls), toolCalls: calls };
    }
    return { text: JSON.stringify(sample(view.responseFormat, summary(results) || user, results)) };
  }
  if (!results.length) {
    const calls = plan(user, view.tools);
    if (calls.length) return { reasoning: reasoningFor(user, calls), text: "Let me check that.", toolCalls: calls };
    const names = view.tools.map((t) => t.name);
    return {
      text: names.length
        ? `You said: "${user}". None of my tools (${names.join(", ")}) fits that, so I am answering directly: I am the tai42 demo model, and I call tools when a request names what they do.`
        : `You said: "${user}". I have no tools in this run; ask with toolNames (for example calculate, clock, echo, kv_get) to see me use them.`,
    };
  }
  return { text: `Here is what I found:\n${summary(results)}` };
}

interface SeenResult {
  tool: string;
  args: Record<string, unknown>;
  text: string;
  isError: boolean;
}

function readPrompt(prompt: LanguageModelV3Prompt): { user: string; results: SeenResult[] } {
  let lastUser = -1;
  prompt.forEach((m, i) => {
    if (m.role === "user") lastUser = i;
  });
  const user =
    lastUser < 0
      ? ""
      : (prompt[lastUser].content as { type: string; text?: string }[])
          .map((p) => p.text ?? "")
          .join(" ")
          .trim();
  const results: SeenResult[] = [];
  const args = new Map<string, Record<string, unknown>>();
  for (const m of prompt.slice(lastUser + 1)) {
    if (m.role === "assistant")
      for (const part of m.content)
        if (part.type === "tool-call") args.set(part.toolCallId, (part.input ?? {}) as Record<string, unknown>);
    if (m.role !== "tool") continue;
    for (const part of m.content) {
      if (part.type !== "tool-result") continue;
      const out = part.output as { type: string; value?: unknown };
      const text = typeof out.value === "string" ? out.value : JSON.stringify(out.value ?? null);
      results.push({
        tool: part.toolName,
        args: args.get(part.toolCallId) ?? {},
        text,
        isError: out.type.startsWith("error"),
      });
    }
  }
  return { user, results };
}

const NUM = String.raw`(-?\d+(?:\.\d+)?)`;
const OPS: Record<string, string> = {
  "+": "add",
  plus: "add",
  "-": "subtract",
  minus: "subtract",
  "*": "multiply",
  x: "multiply",
  "×": "multiply",
  times: "multiply",
  "multiplied by": "multiply",
  "/": "divide",
  "÷": "divide",
  "divided by": "divide",
  "^": "power",
  "to the power of": "power",
};
const ARITH = new RegExp(
  `${NUM}\\s*(\\+|-|\\*|×|x|/|÷|\\^|plus|minus|times|multiplied by|divided by|to the power of)\\s*${NUM}`,
  "gi",
);

/** The tool calls the demo model makes for a request, in the order the text asks. */
export function plan(text: string, tools: OfferedTool[]): ScriptedToolCall[] {
  const has = (name: string) => tools.some((t) => t.name === name);
  const calls: { at: number; call: ScriptedToolCall }[] = [];
  const add = (at: number, toolName: string, input: Record<string, unknown>) =>
    calls.push({ at, call: { toolName, input } });
  if (has("calculate"))
    for (const m of text.matchAll(ARITH))
      add(m.index ?? 0, "calculate", { op: OPS[m[2].toLowerCase()], a: Number(m[1]), b: Number(m[3]) });
  const time = /\b(time|date|today|clock)\b/i.exec(text);
  if (time && has("clock")) {
    const zone = /\bin ([A-Z][A-Za-z_]+\/[A-Za-z_]+)/.exec(text);
    add(time.index, "clock", zone ? { timeZone: zone[1] } : {});
  }
  const put = /\b(?:remember|store|save)\s+(?:that\s+)?["']?([\w.-]+)["']?\s+(?:is|=|as)\s+["']?([^"'.!?]+)["']?/i.exec(
    text,
  );
  if (put && has("kv_put")) add(put.index, "kv_put", { key: put[1], value: put[2].trim() });
  const get = /\b(?:recall|look up|what is stored under)\s+["']?([\w.-]+)/i.exec(text);
  if (get && has("kv_get")) add(get.index, "kv_get", { key: get[1] });
  const echo = /\b(?:echo|repeat)\s+["']?([^"']+)["']?/i.exec(text);
  if (echo && has("echo")) add(echo.index, "echo", { text: echo[1].trim() });
  const sleep = /\b(?:sleep|wait)\s+(?:for\s+)?(\d+(?:\.\d+)?)\s*s/i.exec(text);
  if (sleep && has("sleep")) add(sleep.index, "sleep", { seconds: Number(sleep[1]) });
  const stats = /\b(?:stats|statistics)\b/i.exec(text);
  if (stats && has("admin_stats")) add(stats.index, "admin_stats", {});
  const ask = /\bask me\b(.*)/i.exec(text);
  if (ask && has("ask_caller")) add(ask.index, "ask_caller", { question: askedQuestion(ask[1]) });
  for (const t of tools) {
    const props = (t.inputSchema.properties ?? {}) as Record<string, unknown>;
    const named = new RegExp(`\\b${t.name}\\b`, "i").exec(text);
    if (named && "task" in props && !calls.some((c) => c.call.toolName === t.name))
      add(named.index, t.name, { task: text });
  }
  return calls.sort((a, b) => a.at - b.at).map((c) => c.call);
}

function reasoningFor(user: string, calls: ScriptedToolCall[]): string {
  const names = [...new Set(calls.map((c) => c.toolName))];
  return `The request is "${user}". I can answer it with ${names.join(" and ")}, so I will call ${calls.length === 1 ? "it" : `them (${calls.length} calls)`} first.`;
}

function summary(results: SeenResult[]): string {
  return results.map((r) => `- ${sentence(r)}`).join("\n");
}

const SYMBOL: Record<string, string> = { add: "+", subtract: "−", multiply: "×", divide: "÷", power: "^" };

/** One result in words, for the demo tools it knows; any other as its raw text. */
function sentence(r: SeenResult): string {
  let value: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(r.text) as unknown;
    if (parsed && typeof parsed === "object") value = parsed as Record<string, unknown>;
  } catch {
    // a plain-text result
  }
  if (r.isError) {
    const error = (value.error ?? {}) as { kind?: string; message?: string };
    return `${r.tool} failed${error.kind ? ` (${error.kind})` : ""}: ${error.message ?? r.text}`;
  }
  const a = r.args;
  switch (r.tool) {
    case "calculate":
      return `${a.a} ${SYMBOL[String(a.op)] ?? a.op} ${a.b} = ${value.result}`;
    case "clock":
      return value.local ? `In ${value.timeZone} it is ${value.local}.` : `It is ${value.utc} (UTC).`;
    case "kv_put":
      return `I stored "${a.key}".`;
    case "kv_get":
      return `"${a.key}" is ${JSON.stringify(value.value)}.`;
    case "echo":
      return `The echo says: ${r.text}`;
    default:
      return `${r.tool}: ${r.text}`;
  }
}

/** A value that fits `schema`, filled from the tool results: deterministic, never random. */
function sample(schema: Record<string, unknown>, text: string, results: SeenResult[]): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if ("const" in schema) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      return Object.fromEntries(Object.entries(props).map(([k, s]) => [k, sample(s, text, results)]));
    }
    case "array":
      return schema.minItems
        ? Array.from({ length: Number(schema.minItems) }, () =>
            sample((schema.items ?? {}) as Record<string, unknown>, text, results),
          )
        : [];
    case "number":
    case "integer": {
      const n = firstNumber(results);
      return type === "integer" ? Math.round(n) : n;
    }
    case "boolean":
      return !results.some((r) => r.isError);
    case "null":
      return null;
    default:
      return text;
  }
}

function firstNumber(results: SeenResult[]): number {
  for (const r of results) {
    const m = /-?\d+(?:\.\d+)?/.exec(r.text);
    if (m) return Number(m[0]);
  }
  return 0;
}

/** The question a prompt's "ask me …" names; a bare "ask me" asks what to do next. */
function askedQuestion(text: string): string {
  const topic = text
    .trim()
    .replace(/^(?:about|for|whether)\s+/i, "")
    .replace(/[.?!]*$/, "");
  return topic ? `${topic}?` : "What should I do next?";
}
