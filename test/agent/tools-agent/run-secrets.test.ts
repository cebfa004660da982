import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../src/agent/events.ts";
import { RunSecrets } from "../../../src/agent/tools-agent/run-secrets.ts";
import { Secrets } from "../../../src/secrets/secrets.ts";

const SECRET = "hunter2-password";
const delta = (text: string, turn = 1): StreamEvent => ({
  type: "message_delta",
  final: false,
  text,
  turn,
  agent: null,
});
const subText = (text: string, agent: string, turn = 1): StreamEvent => ({
  type: "intermediate_delta",
  final: false,
  text,
  turn,
  agent,
});

function runSecrets(...learned: string[]): RunSecrets {
  const run = new RunSecrets(new Secrets({ env: {} }).scope());
  for (const s of learned) run.learn(s);
  return run;
}

async function scrubbed(run: RunSecrets, events: StreamEvent[], own: string | null = null): Promise<StreamEvent[]> {
  async function* source() {
    yield* events;
  }
  const out: StreamEvent[] = [];
  for await (const e of run.scrubStream(source(), own)) out.push(e);
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

  it("should scrub a secret that straddles two chunks, each harmless alone", async () => {
    const out = await scrubbed(runSecrets(SECRET), [delta("The password is hunter"), delta("2-password, keep it.")]);
    expect(textOf(out)).toBe("The password is [redacted], keep it.");
    expect(out.some((e) => (e as { text: string }).text.includes("hunter"))).toBe(false);
    expect(out.every((e) => e.type === "message_delta" && e.turn === 1)).toBe(true);
  });

  it("should flush the held tail, alone, before the ToolCallStep that settles its turn, and scrub that event too", async () => {
    const call: StreamEvent = {
      type: "tool_call_step",
      final: false,
      tool: "vault",
      args: { key: SECRET },
      callId: "c1",
      agent: null,
    };
    const out = await scrubbed(runSecrets(SECRET), [
      delta("Calling the vault now, please wait a moment"),
      call,
      delta("done", 2),
    ]);
    expect(out.map((e) => e.type)).toEqual(["message_delta", "message_delta", "tool_call_step", "message_delta"]);
    expect(textOf(out.slice(0, 2))).toBe("Calling the vault now, please wait a moment");
    expect(out[1]).toMatchObject({ turn: 1, text: expect.stringMatching(/wait a moment$/) });
    expect(out[2]).toMatchObject({ args: { key: "[redacted]" } });
    expect(out[3]).toMatchObject({ text: "done", turn: 2 });
  });

  it("should never carry a turn's held tail into the next turn's delta", async () => {
    const out = await scrubbed(runSecrets("abcd"), [delta("first turn text", 1), delta("second", 2)]);
    const byTurn = (turn: number) => textOf(out.filter((e) => e.type === "message_delta" && e.turn === turn));
    expect(byTurn(1)).toBe("first turn text");
    expect(byTurn(2)).toBe("second");
    expect(out.map((e) => (e as { turn: number }).turn)).toEqual([1, 1, 2]);
  });

  it("should lag only its own agent's deltas and pass a sub-agent's (scrubbed by the sub-agent's own loop) through, flushing before the terminal", async () => {
    const final: StreamEvent = { type: "message_final", final: true, text: "done", turn: 2, agent: null };
    const out = await scrubbed(runSecrets("abcd"), [
      delta("parent says", 2),
      subText("child says", "child"),
      subText("more", "child", 2),
      final,
    ]);
    expect(out.map((e) => [e.type, (e as { text?: string }).text])).toEqual([
      ["message_delta", "pare"],
      ["intermediate_delta", "child says"],
      ["intermediate_delta", "more"],
      ["message_delta", "nt says"],
      ["message_final", "done"],
    ]);
  });

  it("should lag a sub-agent's deltas in the sub-agent's own loop", async () => {
    const out = await scrubbed(
      runSecrets(SECRET),
      [subText("I found hunter", "child"), subText("2-password there", "child")],
      "child",
    );
    expect(textOf(out)).toBe("I found [redacted] there");
  });
});
