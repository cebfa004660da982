import { randomUUID } from "node:crypto";
import type { ModelMessage } from "ai";
import { REDACTED } from "../../auth/tiers.ts";
import { describeIssues, ToolError } from "../../errors.ts";
import { finalEventForValue, type StreamEvent } from "../events.ts";
import { runBatch, type BatchItem } from "./batch.ts";
import { callTool, errorOutcome, storable } from "./call-tool.ts";
import { cancelPause } from "../subagents/pause.ts";
import { joinPauses, sharingPause } from "../subagents/shared-pause.ts";
import type { CallOutcome, Checkpoint, DoneOutcome, PlannedCall, SubagentPause } from "./checkpoint.ts";
import { actionsFor } from "./interrupts.ts";
import { askEntry, parkedCall, waitsOf } from "./parked-calls.ts";
import { modelTurn } from "./model-turn.ts";
import { parseStructured } from "./structured-output.ts";
import type { LoopConfig, LoopIO, ResumedBatch, SubagentResume } from "./loop-types.ts";

/**
 * The tools-agent loop (docs/agent-stream.md §5): model turn → tool calls through the
 * chokepoint → results back to the model, until an answer, a terminate, a pause or the
 * recursion limit. Yields every event of the run, RunUsage right before the terminal.
 */
export async function* runLoop(
  cfg: LoopConfig,
  io: LoopIO,
  history: ModelMessage[],
  resumed: ResumedBatch | null,
): AsyncGenerator<StreamEvent> {
  const messages = [...history];
  const specs = new Map(cfg.tools.map((t) => [t.name, t]));
  const usage = function* (): Generator<StreamEvent> {
    if (cfg.mode === "root") yield io.usage.event();
  };
  let usageShown = false;
  /** The run's own agent's text is MessageDelta; a sub-agent's is IntermediateDelta (docs/agent-stream.md §2.2). */
  const member = cfg.mode === "root" ? "message_delta" : "intermediate_delta";
  /** The last turn number used; a continuation of the same run numbers on (docs/agent-stream.md §2.2 rule 1). */
  let turnNo = Math.max(resumed?.turns ?? 0, io.turns?.get(cfg.agent ?? "") ?? 0);
  const nextTurn = () => {
    turnNo = Math.max(turnNo, io.turns?.get(cfg.agent ?? "") ?? 0) + 1;
    io.turns?.set(cfg.agent ?? "", turnNo);
    return turnNo;
  };
  const checkpoint = (c: Checkpoint) => io.checkpoint({ ...c, turns: turnNo });
  try {
    if (resumed) {
      const end = yield* settle(resumed.calls, resumed.now, resumed.known, resumed.interruptId);
      if (end) {
        usageShown = true;
        yield* usage();
        yield end;
        return;
      }
    }
    let retried = false;
    for (let turn = 0; ; turn++) {
      if (turn >= cfg.recursionLimit)
        throw new ToolError(
          `the agent reached its recursion limit of ${cfg.recursionLimit} model calls without a final answer`,
          { kind: "TIMEOUT" },
        );
      const t = yield* modelTurn({
        model: cfg.model,
        settings: cfg.settings,
        system: cfg.system,
        messages,
        tools: cfg.tools,
        responseFormat: cfg.responseFormat,
        signal: io.signal,
        agent: cfg.agent,
        member,
        turn: nextTurn(),
        usage: io.usage,
      });
      if (t.assistant) {
        messages.push(t.assistant);
        await io.persist([t.assistant]);
      }
      if (!t.calls.length) {
        let end: StreamEvent;
        if (cfg.responseFormat) {
          // Its text streamed as it came; an invalid answer is settled by the retry's turn.
          const parsed = parseStructured(t.text, cfg.responseFormat);
          if (!parsed.ok && !retried) {
            retried = true;
            const fix: ModelMessage = {
              role: "user",
              content: `Your answer does not match the required JSON Schema: ${describeIssues(parsed.issues)}. Reply again with only the JSON value.`,
            };
            messages.push(fix);
            await io.persist([fix]);
            continue;
          }
          if (!parsed.ok)
            throw new ToolError(
              `the model's answer did not match responseFormat after one retry: ${describeIssues(parsed.issues)}`,
              { kind: "UPSTREAM" },
            );
          end = { type: "structured_final", final: true, data: parsed.value, turn: turnNo, agent: cfg.agent };
        } else end = { type: "message_final", final: true, text: t.text, turn: turnNo, agent: cfg.agent };
        usageShown = true;
        yield* usage();
        yield end;
        return;
      }
      const actions = actionsFor(t.calls, cfg.gates);
      if (actions.length) {
        const interruptId = randomUUID();
        checkpoint({ kind: "interrupt", interruptId, calls: t.calls, actions });
        const shown = actions.map((a) => ({
          ...a,
          args: specs.get(a.tool)?.redacted ? { redacted: REDACTED } : a.args,
        }));
        usageShown = true;
        yield* usage();
        yield {
          type: "interrupt_final",
          final: true,
          interruptId,
          payload: { actions: shown },
          reason: `approval required: ${[...new Set(actions.map((a) => a.tool))].join(", ")}`,
          agent: cfg.agent,
        };
        return;
      }
      const end = yield* settle(
        t.calls,
        t.calls.map((call) => ({ call })),
        {},
      );
      if (end) {
        usageShown = true;
        yield* usage();
        yield end;
        return;
      }
    }
  } catch (e) {
    if (!usageShown && io.usage.calls > 0) yield* usage();
    throw e;
  }

  /** Runs a turn's calls; returns a terminal when the turn ends the run (pause or terminate). */
  async function* settle(
    calls: PlannedCall[],
    now: ResumedBatch["now"],
    known: Record<string, DoneOutcome>,
    interruptId?: string,
  ): AsyncGenerator<StreamEvent, StreamEvent | null> {
    const items: BatchItem[] = now.map(({ call, outcome, resume }) => ({
      ...itemFor(call, outcome, resume),
      ...(interruptId ? { interruptId } : {}),
    }));
    const outcomes = yield* runBatch(items, cfg.agent);
    // A cancelled run stops here: its aborted calls are not results for the model (docs/agent-stream.md §4.1).
    io.signal.throwIfAborted();
    const byId = new Map<string, CallOutcome>(Object.entries(known));
    items.forEach((it, i) => byId.set(it.callId, outcomes[i]));

    const parked = calls.filter((c) => byId.get(c.callId)?.status === "parked");
    const paused = calls.filter((c) => byId.get(c.callId)?.status === "paused");
    const asking = calls.filter((c) => byId.get(c.callId)?.status === "ask");
    const done = () =>
      Object.fromEntries(
        calls.flatMap((c) =>
          byId.get(c.callId)?.status === "done"
            ? [[c.callId, storable(byId.get(c.callId) as DoneOutcome, specs.get(c.tool)?.redacted ?? false)]]
            : [],
        ),
      );
    // One terminal per run: a park wins, then the first paused sub-agent with every other that
    // paused the same way (docs/agent-stream.md §9.2); any other pause of the turn becomes an error result (its parked
    // tool runs are cancelled).
    const surfaced = parked.length
      ? []
      : sharingPause(paused.map((c) => ({ ...c, pause: (byId.get(c.callId) as { pause: SubagentPause }).pause })));
    for (const c of paused.filter((p) => !surfaced.some((s) => s.callId === p.callId))) {
      await cancelPause((byId.get(c.callId) as { pause: SubagentPause }).pause, io.env);
      const o = errorOutcome(
        "CONFLICT",
        `sub-agent "${c.tool}" paused while another call of the same turn waits; call it again once that is settled`,
      );
      byId.set(c.callId, o);
      yield {
        type: "tool_result_step",
        final: false,
        tool: c.tool,
        callId: c.callId,
        result: o.result,
        isError: true,
        agent: cfg.agent,
      };
    }
    if (surfaced.length) {
      for (const c of asking) {
        await io.env.cancelTool((byId.get(c.callId) as { toolRunId: string }).toolRunId);
        const o = errorOutcome(
          "CONFLICT",
          "ask_caller cannot be answered while a sub-agent of the same turn waits; ask again once it is settled",
        );
        byId.set(c.callId, o);
        yield {
          type: "tool_result_step",
          final: false,
          tool: c.tool,
          callId: c.callId,
          result: o.result,
          isError: true,
          agent: cfg.agent,
        };
      }
      const joined = joinPauses(surfaced, calls, done(), cfg.agent);
      checkpoint(joined.checkpoint);
      return joined.terminal;
    }
    const waiting = (cs: PlannedCall[]) =>
      waitsOf(
        io.interactions,
        cs.map((c) => ({ callId: c.callId, toolRunId: (byId.get(c.callId) as { toolRunId: string }).toolRunId })),
      );
    if (parked.length) {
      for (const c of asking) {
        await io.env.cancelTool((byId.get(c.callId) as { toolRunId: string }).toolRunId);
        const o = errorOutcome(
          "CONFLICT",
          "ask_caller cannot be answered while another tool of the same turn waits on an interaction; ask again once it is answered",
        );
        byId.set(c.callId, o);
        yield {
          type: "tool_result_step",
          final: false,
          tool: c.tool,
          callId: c.callId,
          result: o.result,
          isError: true,
          agent: cfg.agent,
        };
      }
      const waits = await waiting(parked);
      const all = waits.flatMap((w) => w.interactions.filter((i) => i.status === "PENDING"));
      const expiries = all
        .map((i) => i.expiresAt)
        .filter((x): x is string => Boolean(x))
        .sort();
      checkpoint({ kind: "suspend", calls, done: done(), parked: waits.map((w) => parkedCall(w, true)) });
      return {
        type: "suspended_final",
        final: true,
        interactionIds: all.map((i) => i.id),
        callerInteractionIds: all.filter((i) => i.to === "caller").map((i) => i.id),
        threadId: io.threadId,
        expiryAt: expiries[0] ?? null,
        agent: cfg.agent,
      };
    }
    if (asking.length) {
      const waits = await waiting(asking);
      checkpoint({ kind: "asks", calls, done: done(), parked: waits.map((w) => parkedCall(w, false)) });
      return {
        type: "asks_final",
        final: true,
        asks: waits.flatMap((w) => w.interactions.map((i) => askEntry(w.callId, i))),
        agent: cfg.agent,
      };
    }
    const results = calls.map((c) => byId.get(c.callId) as DoneOutcome);
    const toolMessage = {
      role: "tool",
      content: calls.map((c, i) => ({
        type: "tool-result",
        toolCallId: c.callId,
        toolName: c.tool,
        output: results[i].modelOutput,
      })),
    } as ModelMessage;
    messages.push(toolMessage);
    await io.persist([toolMessage]);
    if (results.length && results.every((r) => r.terminate)) {
      const end = finalEventForValue(results[results.length - 1].value);
      if (end.type === "structured_final") return { ...end, turn: null, agent: cfg.agent };
      // The answer is the tool's, not the model's: it streams as one delta of a turn of its own, so the deltas still
      // join to it.
      const turn = nextTurn();
      if (end.text) yield { type: member, final: false, text: end.text, turn, agent: cfg.agent };
      return { ...end, turn, agent: cfg.agent };
    }
    return null;
  }

  function itemFor(call: PlannedCall, fixed: CallOutcome | undefined, resume: SubagentResume | undefined): BatchItem {
    const spec = specs.get(call.tool);
    const shownArgs = spec?.redacted ? { redacted: REDACTED } : call.args;
    const base = { callId: call.callId, tool: call.tool, shownArgs, mode: spec?.executionMode ?? "parallel" };
    if (fixed) return { ...base, run: async () => fixed };
    if (call.invalid || !spec)
      return {
        ...base,
        run: async () =>
          errorOutcome(
            call.invalid?.kind ?? "NOT_FOUND",
            call.invalid?.message ?? `no tool named "${call.tool}" in this run`,
          ),
      };
    return {
      ...base,
      run: (emit) => callTool(spec, call, io.env, emit, cfg.agent, resume),
    };
  }
}
