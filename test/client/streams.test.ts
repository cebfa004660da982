import { afterEach, describe, expect, it } from "vitest";
import { answerText, graphql, TaiGraphQLError, type StreamEvent } from "../../src/client/index.ts";
import { echo, startServer, TRANSPORTS, until, within, type ServerUnderTest } from "./support.ts";

/** A run of the built-in scripted model: reasoning, a tool call and its result, deltas, usage, then MessageFinal. */
const AGENT_INPUT = { userMessage: "What is 12 * 7?", toolNames: ["calculate"] };

/** Reads a stream to its end. */
async function drain<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const value of stream) out.push(value);
  return out;
}

/** Every event of a run exactly once: seq 1..n, one terminal, last. */
function expectWholeRun(events: StreamEvent[]) {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(events.filter((e) => e.final)).toEqual([events.at(-1)]);
  expect(new Set(events.map((e) => e.runId)).size).toBe(1);
}

for (const transport of TRANSPORTS) {
  describe(`tai42/client streams over ${transport} (a real listening server)`, () => {
    let server: ServerUnderTest;
    afterEach(() => server.stop());

    const start = async () => (server = await startServer());
    const listeners = (topic: "runEvent" | "agentEvent" = "runEvent") => server.rt.bus.listenerCount(topic);

    describe("runEvents", () => {
      it("should replay the stored events after afterSeq, then continue live", async () => {
        const { rt } = await start();
        const a = await echo(rt, "a");
        const b = await echo(rt, "b");
        const [, aFinished] = await rt.runs.events({ runId: a.id }, 0);
        const events = server.client({ transport }).runEvents({ afterSeq: aFinished.seq });
        const replayed = [(await events.next()).value!, (await events.next()).value!];
        expect(replayed.map((e) => [e.run.id, e.type, e.run.status])).toEqual([
          [b.id, "RUN_STARTED", "RUNNING"],
          [b.id, "RUN_FINISHED", "SUCCEEDED"],
        ]);
        await until("the stream to listen live", () => listeners() === 1);
        const c = await echo(rt, "c");
        const live = [(await events.next()).value!, (await events.next()).value!];
        expect(live.map((e) => [e.run.id, e.type])).toEqual([
          [c.id, "RUN_STARTED"],
          [c.id, "RUN_FINISHED"],
        ]);
        expect([...replayed, ...live].map((e) => e.seq)).toEqual(
          (await rt.runs.events({}, aFinished.seq)).map((e) => e.seq),
        );
        expect(events.lastSeq).toBe(live[1].seq);
        await events.return();
      });

      it("should deliver only the events of the run it filters on", async () => {
        const { rt } = await start();
        const target = await echo(rt, "target");
        await echo(rt, "other");
        const events = server.client({ transport }).runEvents({ runId: target.id, afterSeq: 0 });
        const got = [(await events.next()).value!, (await events.next()).value!];
        expect(got.map((e) => [e.run.id, e.type])).toEqual([
          [target.id, "RUN_STARTED"],
          [target.id, "RUN_FINISHED"],
        ]);
        await events.return();
      });

      it("should end the subscription on the server when the consumer breaks", async () => {
        const { rt } = await start();
        await echo(rt, "one");
        const events = server.client({ transport }).runEvents({ afterSeq: 0 });
        for await (const e of events) {
          expect(e.type).toBe("RUN_STARTED");
          break;
        }
        await until("the server to release the subscription", () => listeners() === 0);
        expect(await events.next()).toEqual({ value: undefined, done: true });
      });
    });

    describe("agentStream", () => {
      it("should stream a run of the scripted model to its terminal event, then end", async () => {
        await start();
        const events = await drain(server.client({ transport }).agentStream(AGENT_INPUT));
        expectWholeRun(events);
        expect(events.map((e) => e.__typename)).toEqual(
          expect.arrayContaining(["ReasoningStep", "ToolCallStep", "ToolResultStep", "MessageDelta", "RunUsage"]),
        );
        const call = events.find((e) => e.__typename === "ToolCallStep");
        expect(call?.__typename === "ToolCallStep" && call.args).toEqual({ op: "multiply", a: 12, b: 7 });
        const final = events.at(-1)!;
        expect(final.__typename).toBe("MessageFinal");
        expect(final.__typename === "MessageFinal" && final.text).toContain("12 × 7 = 84");
        // The deltas carry their turn, and answerText keeps the one the terminal names.
        expect(final.__typename === "MessageFinal" && final.turn).toBe(2);
        expect(
          events
            .filter((e) => e.__typename === "MessageDelta")
            .every((e) => e.__typename === "MessageDelta" && typeof e.turn === "number"),
        ).toBe(true);
        expect(answerText(events)).toBe(final.__typename === "MessageFinal" ? final.text : null);
      });

      it("should join a run with runId and afterSeq and get the rest of it", async () => {
        await start();
        const client = server.client({ transport });
        const first = client.agentStream(AGENT_INPUT);
        const head = [(await first.next()).value!, (await first.next()).value!];
        await first.return();
        const rest = await drain(client.agentStream(AGENT_INPUT, { runId: head[0].runId, afterSeq: 2 }));
        expectWholeRun([...head, ...rest]);
        expect(await server.rt.agents.store.get(head[0].runId)).toMatchObject({ id: head[0].runId });
      });

      it("should end the subscription on the server when the consumer breaks mid-run", async () => {
        await start();
        for await (const e of server.client({ transport }).agentStream(AGENT_INPUT)) {
          expect(e.seq).toBe(1);
          break;
        }
        await until("the server to release the subscription", () => listeners("agentEvent") === 0);
      });

      it("should throw the server's refusal of a start as a TaiGraphQLError, once", async () => {
        await start();
        const before = server.connections;
        const error = await drain(
          server.client({ transport }).agentStream({ ...AGENT_INPUT, toolNames: ["no_such_tool"] }),
        ).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TaiGraphQLError);
        expect((error as TaiGraphQLError).code).toBe("BAD_USER_INPUT");
        expect(server.connections - before).toBe(1);
      });
    });

    describe("subscribe", () => {
      it("should yield the typed data of any subscription document", async () => {
        const { rt } = await start();
        const run = await echo(rt, "typed");
        const Events = graphql(`
          subscription Events($after: Int) {
            runEvents(afterSeq: $after) {
              seq
              type
              run {
                id
              }
            }
          }
        `);
        const sub = server.client({ transport }).subscribe(Events, { after: 0 });
        const { value } = await sub.next();
        expect(value).toEqual({ runEvents: { seq: expect.any(Number), type: "RUN_STARTED", run: { id: run.id } } });
        await sub.return();
        await until("the server to release the subscription", () => listeners() === 0);
      });
    });

    describe("auth", () => {
      it("should refuse a bad key with a typed UNAUTHENTICATED error, without retrying", async () => {
        await start();
        const before = server.connections;
        const events = server.client({ transport, apiKey: "not-a-key" }).runEvents({ afterSeq: 0 });
        const error = await within(
          "the refusal",
          events.next().catch((e: unknown) => e),
        );
        expect(error).toBeInstanceOf(TaiGraphQLError);
        expect((error as TaiGraphQLError).code).toBe("UNAUTHENTICATED");
        // A retry would have opened another connection before giving up.
        expect(server.connections - before).toBe(1);
        expect(await events.next()).toEqual({ value: undefined, done: true });
      });
    });

    describe("close", () => {
      it("should end the open streams and their server-side subscriptions", async () => {
        await start();
        const client = server.client({ transport });
        const events = client.runEvents();
        const pending = events.next();
        await until("the stream to listen", () => listeners() === 1);
        await client.close();
        expect(await pending).toEqual({ value: undefined, done: true });
        await until("the server to release the subscription", () => listeners() === 0);
      });
    });
  });
}
