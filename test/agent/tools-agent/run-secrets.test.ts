import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../src/agent/events.ts";
import { RunSecrets } from "../../../src/agent/tools-agent/run-secrets.ts";
import { Secrets } from "../../../src/secrets/secrets.ts";

const SECRET = "hunter2-password";
const delta = (text: string, agent: string | null = null): StreamEvent => ({ type: "message_delta", final: false, text, agent });
const thought = (text: string, agent: string | null = null): StreamEvent => ({ type: "intermediate_delta", final: false, text, agent });

function runSecrets(...learned: string[]): RunSecrets {
  const run = new RunSecrets(new Secrets({ env: {} }).scope());
  for (const s of learned) run.learn(s);
  return run;
}

async function scrubbed(run: RunSecrets, events: StreamEvent[]): Promise<StreamEvent[]> {
  async function* source() {
    yield* events;
  }
  const out: StreamEvent[] = [];
  for await (const e of run.scrubStream(source())) out.push(e);
  return out;
}

const textOf = (events: StreamEvent[]) => events.map((e) => (e as { text?: string }).text ?? "").join("");

describe("RunSecrets: what one run learned from secret tools", () => {
  it("should remember every string of four characters or more inside a value, and scrub copies of values", () => {
    const run = runSecrets();
    run.learn({ password: SECRET, pin: "123", nested: ["token-abc"] });
    const value = { said: `the password is ${SECRET}`, pin: "123", list: ["token-abc"] };
    expect(run.scrub(value)).toEqual({ said: "the password is [redacted]", pin: "123", list: ["[redacted]"] });
    expect(value.said).toContain(SECRET);
  });

  it("should scrub a secret the model splits across deltas, whatever the cut", async () => {
    const text = `Your password is ${SECRET}, keep it safe.`;
    for (let cut = 1; cut < text.length; cut += 3) {
      const chunks = [];
      for (let i = 0; i < text.length; i += cut) chunks.push(delta(text.slice(i, i + cut)));
      const out = await scrubbed(runSecrets(SECRET), chunks);
      expect(textOf(out)).toBe("Your password is [redacted], keep it safe.");
      expect(out.every((e) => !(e as { text: string }).text.includes("hunter"))).toBe(true);
    }
  });

  it("should pass text through unchanged, as one delta per delta, when the run knows no secret", async () => {
    const out = await scrubbed(runSecrets(), [delta("a "), delta("b")]);
    expect(out).toEqual([delta("a "), delta("b")]);
  });

  it("should hold back a constant tail (longest form of a secret − 1 characters) and send it with the next delta", async () => {
    // "abcd"'s longest forms (its hex, its base64) are 8 characters: 7 are held back.
    const run = runSecrets("abcd");
    const gen = run.scrubStream(
      (async function* () {
        yield delta("0123456789");
        yield delta("XY");
      })(),
    );
    expect((await gen.next()).value).toMatchObject({ text: "012" });
    expect((await gen.next()).value).toMatchObject({ text: "34" });
    expect((await gen.next()).value).toMatchObject({ text: "56789XY" });
    expect((await gen.next()).done).toBe(true);
  });

  it("should flush the held text before any other event, and scrub that event too", async () => {
    const call: StreamEvent = { type: "tool_call_step", final: false, tool: "vault", args: { key: SECRET }, callId: "c1", agent: null };
    const out = await scrubbed(runSecrets(SECRET), [delta("Calling the vault now, please wait a moment"), call, delta("done")]);
    expect(out.map((e) => e.type)).toEqual(["message_delta", "message_delta", "tool_call_step", "message_delta"]);
    expect(textOf(out.slice(0, 2))).toBe("Calling the vault now, please wait a moment");
    expect(out[2]).toMatchObject({ args: { key: "[redacted]" } });
  });

  it("should keep the deltas of different agents and of message and intermediate text apart", async () => {
    const out = await scrubbed(runSecrets("abcd"), [delta("parent says", null), delta("child says", "child"), thought("thinking", "child")]);
    const byStream = (type: string, agent: string | null) => textOf(out.filter((e) => e.type === type && (e as { agent: string | null }).agent === agent));
    expect(byStream("message_delta", null)).toBe("parent says");
    expect(byStream("message_delta", "child")).toBe("child says");
    expect(byStream("intermediate_delta", "child")).toBe("thinking");
  });
});
