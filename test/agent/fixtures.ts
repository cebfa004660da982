import { z } from "zod";
import { App } from "../../src/app.ts";
import { sleep } from "../../src/dispatch/retry-loop.ts";
import { park } from "../../src/interactions/park.ts";
import { toolResult } from "../../src/tools/result.ts";

/** When each call of a timing tool ran, by label. */
export interface Span {
  label: string;
  start: number;
  end: number;
}

/**
 * Tools the agent tests call: `slow` (parallel) and `serial` (sequential) record when each
 * call ran; `finish` asks the loop to terminate; `vault_read` is a secret-tier tool;
 * `approve_spend` parks on a question to a user, `confirm_with_caller` on one to the caller.
 */
export function agentTestApp(spans: Span[] = []): App {
  const app = new App();
  const ended = new Map<string, () => void>();
  const endOf = (label: string) =>
    new Promise<void>((resolve) => (spans.some((s) => s.label === label) ? resolve() : ended.set(label, resolve)));
  // Waits `ms`, or, given `until`, until the call labelled so has ended (at most `ms`).
  const timed = async ({ label, ms, until }: { label: string; ms: number; until?: string }) => {
    const start = performance.now();
    const stop = new AbortController();
    await Promise.race([sleep(ms, stop.signal).catch(() => {}), ...(until ? [endOf(until)] : [])]);
    stop.abort();
    spans.push({ label, start, end: performance.now() });
    ended.get(label)?.();
    return { label };
  };
  const timedInput = z.object({ label: z.string(), ms: z.number(), until: z.string().optional() });
  app.tool({ name: "slow", description: "Waits, then returns its label.", input: timedInput }, timed);
  app.tool(
    {
      name: "serial",
      description: "Waits, then returns its label. One at a time.",
      input: timedInput,
      executionMode: "sequential",
    },
    timed,
  );
  app.tool(
    { name: "finish", description: "Ends the run with a value.", input: z.object({ value: z.string() }) },
    ({ value }) => toolResult({ data: { done: value }, terminate: true }),
  );
  app.tool(
    { name: "vault_read", description: "Reads a secret.", input: z.object({ name: z.string() }), tier: "secret" },
    ({ name }) => ({ secret: `s3cr3t-for-${name}` }),
  );
  app.tool(
    {
      name: "approve_spend",
      description: "Asks a human to approve a spend.",
      input: z.object({ amount: z.number() }),
      pauses: true,
    },
    ({ amount }) =>
      park({
        interactions: [
          {
            question: `Approve spending ${amount}?`,
            answerFormat: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
            expiresInSeconds: 3600,
          },
        ],
      }),
  );
  app.tool(
    {
      name: "confirm_with_caller",
      description: "Asks the caller to confirm.",
      input: z.object({ what: z.string() }),
      pauses: true,
    },
    ({ what }) => park({ interactions: [{ question: `Confirm ${what}?`, to: "caller" }] }),
  );
  app.tool(
    { name: "brief_wait", description: "Asks a question that expires at once.", input: z.object({}), pauses: true },
    () => park({ interactions: [{ question: "Quick?", expiresInSeconds: 0.1 }] }),
  );
  return app;
}
