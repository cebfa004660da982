import { describe, expect, it } from "vitest";
import { as } from "../helpers/runtime.ts";
import { collect } from "../graphql/support.ts";
import { useScript } from "./support.ts";
import { agentStreamServer, AGENT_STREAM, callThenAnswer, type Ev } from "./stream-ws-support.ts";

describe("agentStream over graphql-ws (real sockets)", () => {
  const { start, client, stream, kinds, expectWellFormed, http } = agentStreamServer();

  describe("terminal kinds", () => {
    it("should stream a message run: reasoning, the tool call and result, the deltas, usage, then MessageFinal", async () => {
      const r = await start();
      useScript(r.agents, "s", [
        { reasoning: "Echo first.", toolCalls: [{ toolName: "echo", input: { text: "hi" } }] },
        { text: "It said hi." },
      ]);
      const { events, sub } = await stream({ input: { userMessage: "say hi", toolNames: ["echo"], llmProvider: "s" } });
      expectWellFormed(events, sub);
      expect(kinds(events)).toEqual([
        "reasoning_step",
        "tool_call_step",
        "tool_result_step",
        "message_delta",
        "message_delta",
        "message_delta",
        "run_usage",
        "message_final",
      ]);
      expect(events[1]).toMatchObject({
        __typename: "ToolCallStep",
        tool: "echo",
        args: { text: "hi" },
        callId: "call_0_0",
        agent: null,
      });
      expect(events[2]).toMatchObject({
        __typename: "ToolResultStep",
        callId: "call_0_0",
        result: "hi",
        isError: false,
      });
      expect(events.at(-1)).toMatchObject({ __typename: "MessageFinal", text: "It said hi.", final: true });
    });

    it("should stream a structured run ending with StructuredFinal", async () => {
      const r = await start();
      useScript(r.agents, "s", [{ text: '{"city":"Paris","population":2100000}' }]);
      const responseFormat = {
        type: "object",
        properties: { city: { type: "string" }, population: { type: "integer" } },
        required: ["city", "population"],
      };
      const { events, sub } = await stream({
        input: { userMessage: "largest city?", responseFormat, llmProvider: "s" },
      });
      expectWellFormed(events, sub);
      expect(kinds(events)).toEqual(["message_delta", "run_usage", "structured_final"]);
      expect(events.at(-1)).toMatchObject({
        __typename: "StructuredFinal",
        data: { city: "Paris", population: 2100000 },
      });
    });

    describe("interrupt, then resume", () => {
      async function interrupted() {
        const r = await start();
        useScript(
          r.agents,
          "s",
          callThenAnswer({ toolName: "kv_put", input: { key: "colour", value: "blue" } }, "Stored."),
        );
        const { events, sub } = await stream({
          input: {
            userMessage: "remember colour is blue",
            toolNames: ["kv_put"],
            interruptOn: {
              kv_put: { allowedDecisions: ["approve", "edit", "reject"], description: "Writes need a reviewer" },
            },
            llmProvider: "s",
          },
        });
        expectWellFormed(events, sub);
        expect(kinds(events)).toEqual(["run_usage", "interrupt_final"]);
        const interrupt = events.at(-1)!;
        expect(interrupt).toMatchObject({
          __typename: "InterruptFinal",
          reason: "approval required: kv_put",
          payload: {
            actions: [
              {
                callId: "call_0_0",
                tool: "kv_put",
                args: { key: "colour", value: "blue" },
                allowedDecisions: ["approve", "edit", "reject"],
                description: "Writes need a reviewer",
              },
            ],
          },
        });
        expect(await r.db.kvEntry.count()).toBe(0);
        const run = await r.agents.store.get(interrupt.runId);
        return { r, threadId: run!.threadId!, interrupt };
      }

      it("should run the approved call on resume and continue the thread to a MessageFinal", async () => {
        const { r, threadId, interrupt } = await interrupted();
        const { events, sub } = await stream({
          input: { threadId, resume: { decisions: [{ type: "approve" }] }, resumeCheckpointId: interrupt.runId },
        });
        expectWellFormed(events, sub);
        expect(kinds(events)).toEqual([
          "tool_call_step",
          "tool_result_step",
          "message_delta",
          "run_usage",
          "message_final",
        ]);
        expect(events[0]).toMatchObject({ tool: "kv_put", callId: "call_0_0", args: { key: "colour", value: "blue" } });
        expect(events[1]).toMatchObject({ isError: false, result: { key: "colour" } });
        expect((await r.db.kvEntry.findUnique({ where: { key: "colour" } }))?.value).toBe("blue");
        expect(events[0].runId).not.toBe(interrupt.runId);
        expect((await r.agents.store.get(interrupt.runId))?.status).toBe("RESUMED");
      });

      it("should run an edited call with the reviewer's arguments", async () => {
        const { r, threadId } = await interrupted();
        const { events, sub } = await stream({
          input: { threadId, resume: { type: "edit", args: { key: "colour", value: "green" } } },
        });
        expectWellFormed(events, sub);
        expect(kinds(events)).toEqual([
          "tool_call_step",
          "tool_result_step",
          "message_delta",
          "run_usage",
          "message_final",
        ]);
        expect(events[0]).toMatchObject({ args: { key: "colour", value: "green" } });
        expect((await r.db.kvEntry.findUnique({ where: { key: "colour" } }))?.value).toBe("green");
      });

      it("should not run a rejected call and tell the model it was rejected", async () => {
        const { r, threadId } = await interrupted();
        const { events, sub } = await stream({
          input: { threadId, resume: { decisions: [{ type: "reject", message: "not now" }] } },
        });
        expectWellFormed(events, sub);
        expect(kinds(events)).toEqual([
          "tool_call_step",
          "tool_result_step",
          "message_delta",
          "run_usage",
          "message_final",
        ]);
        expect(events[1]).toMatchObject({ isError: true, result: { rejected: true, message: "not now" } });
        expect(await r.db.kvEntry.count()).toBe(0);
      });

      it("should refuse a second resume of the same interrupt, and a decision the gate does not allow", async () => {
        const { threadId } = await interrupted();
        const bad = await stream({
          input: { threadId, resume: { decisions: [{ type: "approve" }, { type: "approve" }] } },
        });
        expect(bad.sub.errors).toMatchObject([
          {
            extensions: {
              code: "BAD_USER_INPUT",
              issues: [{ path: "/resume/decisions", message: expect.stringContaining("must have 1 decision") }],
            },
          },
        ]);
        await stream({ input: { threadId, resume: { decisions: [{ type: "approve" }] } } });
        const again = await stream({ input: { threadId, resume: { decisions: [{ type: "approve" }] } } });
        expect(again.sub.errors).toMatchObject([
          { extensions: { code: "CONFLICT" }, message: expect.stringContaining("has nothing to resume") },
        ]);
      });
    });

    describe("suspend, answer, resume", () => {
      async function suspended() {
        const r = await start();
        useScript(
          r.agents,
          "s",
          callThenAnswer({ toolName: "approve_spend", input: { amount: 5 } }, "The spend was approved."),
        );
        const { events, sub } = await stream({
          input: { userMessage: "spend 5", toolNames: ["approve_spend"], llmProvider: "s" },
        });
        expectWellFormed(events, sub);
        expect(kinds(events)).toEqual(["tool_call_step", "run_usage", "suspended_final"]);
        const final = events.at(-1)!;
        const interactions = await r.interactions.list("PENDING", as("ADMIN"));
        expect(final).toMatchObject({
          __typename: "SuspendedFinal",
          interactionIds: [interactions[0].id],
          callerInteractionIds: [],
          threadId: expect.any(String),
        });
        expect(Date.parse(final.expiryAt as string)).toBe(Date.parse(interactions[0].expiresAt!));
        return { r, final, interactionId: interactions[0].id };
      }

      it("should resume out of band once the interaction is answered: joining with runId and afterSeq streams the continuation", async () => {
        const { final, interactionId } = await suspended();
        const early = await stream({ input: { threadId: final.threadId, resume: {} } });
        expect(early.sub.errors).toMatchObject([
          { extensions: { code: "CONFLICT" }, message: expect.stringContaining(interactionId) },
        ]);
        // Subscribed before the answer: the stream waits, then continues with the resumed events.
        const joined = collect<{ agentStream: Ev }>(client(), AGENT_STREAM, {
          input: {},
          runId: final.runId,
          afterSeq: final.seq,
        });
        const answered = await http(
          `mutation($id: ID!, $a: JSON!) { answerInteraction(id: $id, answer: $a) { status data } }`,
          { id: interactionId, a: { ok: true } },
        );
        expect(answered.data?.answerInteraction).toEqual({ status: "SUCCEEDED", data: { ok: true } });
        await joined.waitForEnd(15_000);
        const events = joined.data.map((d) => d.agentStream);
        expect(joined.errors).toEqual([]);
        expect(kinds(events)).toEqual([
          "tool_call_step",
          "tool_result_step",
          "message_delta",
          "message_delta",
          "message_delta",
          "message_delta",
          "run_usage",
          "message_final",
        ]);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => final.seq + 1 + i));
        expect(events.every((e) => e.runId === final.runId)).toBe(true);
        expect(events[1]).toMatchObject({ tool: "approve_spend", isError: false, result: { ok: true } });
        expect(events.at(-1)).toMatchObject({ text: "The spend was approved." });
      });

      it("should accept the answers inside the resume itself", async () => {
        const { final, interactionId } = await suspended();
        const { events, sub } = await stream({
          input: { threadId: final.threadId, resume: { answers: { [interactionId]: { ok: false } } } },
        });
        expectWellFormed(events, sub);
        expect(events[1]).toMatchObject({ result: { ok: false } });
      });

      it("should split out the interactions addressed to the caller", async () => {
        const r = await start();
        useScript(r.agents, "s", (v) =>
          v.prompt.at(-1)?.role === "tool"
            ? { text: "ok" }
            : {
                toolCalls: [
                  { toolName: "approve_spend", input: { amount: 1 } },
                  { toolName: "confirm_with_caller", input: { what: "the plan" } },
                ],
              },
        );
        const { events } = await stream({
          input: { userMessage: "go", toolNames: ["approve_spend", "confirm_with_caller"], llmProvider: "s" },
        });
        const final = events.at(-1)!;
        const pending = await r.interactions.list("PENDING", as("ADMIN"));
        const toCaller = pending.filter((i) => i.to === "caller").map((i) => i.id);
        expect(final.type).toBe("suspended_final");
        expect((final.interactionIds as string[]).sort()).toEqual(pending.map((i) => i.id).sort());
        expect(final.callerInteractionIds).toEqual(toCaller);
        expect(toCaller).toHaveLength(1);
      });
    });

    it("should end with AsksFinal when the model asks its caller, and continue with the answer", async () => {
      const r = await start();
      useScript(
        r.agents,
        "s",
        callThenAnswer(
          { toolName: "ask_caller", input: { question: "Which city?", answerFormat: { type: "string" } } },
          "Booking Paris.",
        ),
      );
      const first = await stream({ input: { userMessage: "book a trip", llmProvider: "s" } });
      expectWellFormed(first.events, first.sub);
      expect(kinds(first.events)).toEqual(["tool_call_step", "run_usage", "asks_final"]);
      const [ask] = first.events.at(-1)!.asks as { id: string; question: string; to: string; callId: string }[];
      expect(ask).toMatchObject({
        question: "Which city?",
        to: "caller",
        callId: "call_0_0",
        answerFormat: { type: "string" },
      });
      const run = await r.agents.store.get(first.events[0].runId);
      const wrong = await stream({ input: { threadId: run!.threadId, resume: { answers: { [ask.id]: 42 } } } });
      expect(wrong.sub.errors).toMatchObject([
        {
          extensions: {
            code: "BAD_USER_INPUT",
            issues: [{ path: `/resume/answers/${ask.id}`, message: "must be string" }],
          },
        },
      ]);
      const { events, sub } = await stream({
        input: { threadId: run!.threadId, resume: { answers: { [ask.id]: "Paris" } } },
      });
      expectWellFormed(events, sub);
      expect(kinds(events)).toEqual([
        "tool_call_step",
        "tool_result_step",
        "message_delta",
        "message_delta",
        "run_usage",
        "message_final",
      ]);
      expect(events[1]).toMatchObject({ tool: "ask_caller", result: "Paris", isError: false });
    });
  });

  describe("replay", () => {
    it("should give a client that disconnects mid-run and rejoins with afterSeq every event exactly once, in order", async () => {
      const r = await start();
      const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
      // The answer's deltas leave in one burst when its turn ends (docs/agent-stream.md §2.2): three tool turns come
      // first, live.
      const echo = (text: string) => ({ toolCalls: [{ toolName: "echo", input: { text } }] });
      useScript(r.agents, "slow", [echo("x"), echo("y"), echo("z"), { text: words }], 20);
      const first = client();
      const early = collect<{ agentStream: Ev }>(first, AGENT_STREAM, {
        input: { userMessage: "talk", toolNames: ["echo"], llmProvider: "slow" },
      });
      await early.waitForData(6);
      await first.dispose();
      const seen = early.data.map((d) => d.agentStream);
      const runId = seen[0].runId;
      const lastSeq = seen.at(-1)!.seq;
      expect((await r.agents.store.get(runId))?.status).toBe("RUNNING");

      const { events, sub } = await stream({ input: {}, runId, afterSeq: lastSeq });
      expect(sub.errors).toEqual([]);
      const all = [...seen, ...events];
      expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
      expect(all.filter((e) => e.final)).toHaveLength(1);
      const stored = await r.agents.store.events(runId, 0);
      expect(all.map((e) => [e.seq, e.type])).toEqual(stored.map((e) => [e.seq, e.type]));
      expect(events.at(-1)).toMatchObject({ type: "message_final", text: words });
    });

    it("should replay a finished run from afterSeq, then complete", async () => {
      const r = await start();
      useScript(r.agents, "s", [{ text: "one two three" }]);
      const { events } = await stream({ input: { userMessage: "count", llmProvider: "s" } });
      const { events: replayed, sub } = await stream({ input: {}, runId: events[0].runId, afterSeq: 2 });
      expect(sub.completed).toBe(true);
      expect(replayed).toEqual(events.slice(2));
      void r;
    });

    it("should answer NOT_FOUND to another caller joining a run, as if it did not exist", async () => {
      const r = await start();
      useScript(r.agents, "s", [{ text: "mine" }]);
      const { events } = await stream({ input: { userMessage: "x", llmProvider: "s" } });
      const otherKey = await r.keys.create("other-user", "USER");
      const { sub } = await stream({ input: {}, runId: events[0].runId }, client(otherKey));
      expect(sub.errors).toMatchObject([{ extensions: { code: "NOT_FOUND" } }]);
    });
  });
});
