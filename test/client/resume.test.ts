import { afterEach, describe, expect, it } from "vitest";
import { TaiTransportError, type RunEvent, type StreamEvent } from "../../src/client/index.ts";
import { echo, startServer, TRANSPORTS, until, type ServerUnderTest } from "./support.ts";

const AGENT_INPUT = {
  userMessage: "What is 12 * 7, and what time is it in Europe/Paris?",
  toolNames: ["calculate", "clock"],
};

/** Reads `n` values from a stream, with a bound on the wait. */
async function take<T>(stream: AsyncIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  while (out.length < n) {
    const r = await stream.next();
    if (r.done) throw new Error(`the stream ended after ${out.length} of ${n} values`);
    out.push(r.value);
  }
  return out;
}

for (const transport of TRANSPORTS) {
  describe(`tai42/client streams resume after a lost connection, over ${transport}`, () => {
    let server: ServerUnderTest;
    afterEach(() => server.stop());

    const listeners = () => server.rt.bus.listenerCount("runEvent");

    it("should deliver every run event exactly once, in order, across a server-side cut of its connection", async () => {
      server = await startServer();
      const { rt } = server;
      const events = server.client({ transport }).runEvents({ afterSeq: 0 });
      await echo(rt, "before-1");
      await echo(rt, "before-2");
      const seen: RunEvent[] = await take(events, 4);
      const connected = server.connections;

      expect(server.dropConnections()).toBeGreaterThan(0);
      // Runs go on while the stream is away; it replays them when it is back.
      await echo(rt, "while-away-1");
      await echo(rt, "while-away-2");
      seen.push(...(await take(events, 4)));
      expect(server.connections).toBeGreaterThan(connected);

      await until("the resumed stream to listen live", () => listeners() === 1);
      await echo(rt, "after");
      seen.push(...(await take(events, 2)));

      const stored = (await rt.runs.events({}, 0)).map((e) => e.seq);
      expect(seen.map((e) => e.seq)).toEqual(stored);
      expect(seen.map((e) => e.type)).toEqual(Array.from({ length: 5 }, () => ["RUN_STARTED", "RUN_FINISHED"]).flat());
      expect(events.lastSeq).toBe(stored.at(-1));
      await events.return();
    });

    it("should stream an agent run to its terminal exactly once across a server-side cut mid-run, without starting a second run", async () => {
      server = await startServer();
      const seen: StreamEvent[] = [];
      let dropped = 0;
      let connectedBeforeDrop = 0;
      for await (const e of server.client({ transport }).agentStream(AGENT_INPUT)) {
        seen.push(e);
        if (seen.length === 3) {
          connectedBeforeDrop = server.connections;
          dropped = server.dropConnections();
        }
      }
      expect(dropped).toBeGreaterThan(0);
      expect(server.connections).toBeGreaterThan(connectedBeforeDrop);
      expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
      expect(seen.filter((e) => e.final)).toEqual([seen.at(-1)]);
      expect(seen.at(-1)!.__typename).toBe("MessageFinal");
      expect(new Set(seen.map((e) => e.runId)).size).toBe(1);
      expect(seen.length).toBe(await server.rt.agents.store.lastSeq(seen[0].runId));
      expect(await server.rt.db.agentRun.count()).toBe(1);
    });

    it("should resume across a server restart on the same address", async () => {
      server = await startServer();
      const { rt } = server;
      const events = server
        .client({ transport, retry: { attempts: 50, delayMs: () => 20 } })
        .runEvents({ afterSeq: 0 });
      await echo(rt, "before");
      const seen = await take(events, 2);

      await server.down();
      await echo(rt, "while-down");
      await server.up();
      seen.push(...(await take(events, 2)));

      expect(seen.map((e) => e.seq)).toEqual((await rt.runs.events({}, 0)).map((e) => e.seq));
      await events.return();
    });

    it("should give up with a TaiTransportError once its retry budget is spent", async () => {
      server = await startServer();
      const { rt } = server;
      const events = server.client({ transport, retry: { attempts: 2, delayMs: () => 10 } }).runEvents({ afterSeq: 0 });
      await echo(rt, "only");
      await take(events, 2);
      await server.down();
      const error = await events.next().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaiTransportError);
      expect((error as Error).message).toMatch(/^gave up resuming the stream after 2 attempts: /);
      expect(await events.next()).toEqual({ value: undefined, done: true });
    });
  });
}
