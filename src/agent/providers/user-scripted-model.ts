import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamResult,
} from "@ai-sdk/provider";
import { conversationOf, type Conversation } from "./conversation.ts";
import { describeIssues, oneTurnIssues, scriptError, turnIssues, type ScriptTurn } from "./script.ts";
import { readScriptFile } from "./script-file.ts";
import { ScriptedModel, type ScriptedTurn, type ScriptView } from "./scripted-model.ts";

/**
 * How a scripted model decides its turn: a list played by {@link Conversation.turn}, or a function of the conversation.
 */
export type ScriptTurns = ScriptTurn[] | ((conversation: Conversation) => ScriptTurn);

/** Options of {@link scriptedModel}: `turns` (code) or `file` (a JSON or YAML script), not both. */
export interface ScriptedModelInit {
  turns?: ScriptTurns;
  /**
   * A script file: `{ turns, chunkDelayMs?, modelId? }` in JSON (`.json`) or YAML. Read once, here; a relative path
   * from the working directory (a URL from `import.meta.url` names one beside the module).
   */
  file?: string | URL;
  /**
   * Milliseconds between streamed chunks (a word of text or reasoning, half a call's arguments). @default the file's,
   * else 0
   */
  chunkDelayMs?: number;
  /** The model id reported (RunUsage.model). @default the file's, else "scripted" */
  modelId?: string;
}

/**
 * A scripted language model (the AI SDK's `LanguageModelV3`) for testing an agent over
 * one's own tools offline: each model call plays one turn — reasoning, text, tool calls
 * — streamed in chunks like a provider's. Turn n of a list answers the model call that is
 * shown n assistant turns, so the same model serves any number of runs, resumes and
 * instances deterministically. Register it with `app.llmProvider(name, model)` and run
 * with `llmProvider: name` (or `TAI_LLM_PROVIDER=name`).
 *
 * A malformed script is refused here, with a `DefinitionError` of rule `provider.script`
 * naming each problem's path (and the file's). A function's turn is checked when it is
 * played: a bad one fails that model call with the problem. A list that runs out fails
 * the call that has no turn.
 */
export function scriptedModel(init: ScriptedModelInit): LanguageModelV3 {
  if (typeof init !== "object" || init === null)
    throw scriptError("scriptedModel", [{ path: "", message: "takes { turns } or { file }" }]);
  if ((init.turns === undefined) === (init.file === undefined))
    throw scriptError("scriptedModel", [{ path: "", message: "takes exactly one of turns and file" }]);
  const file = init.file !== undefined ? readScriptFile(init.file) : undefined;
  const turns = file?.turns ?? init.turns!;
  if (typeof turns !== "function") {
    const issues = turnIssues(turns, "/turns");
    if (!issues.length && !turns.length) issues.push({ path: "/turns", message: "must hold at least one turn" });
    if (issues.length) throw scriptError("scriptedModel", issues);
  }
  return new UserScriptedModel(
    turns,
    init.modelId ?? file?.modelId ?? "scripted",
    init.chunkDelayMs ?? file?.chunkDelayMs ?? 0,
  );
}

class UserScriptedModel implements LanguageModelV3 {
  readonly specificationVersion = "v3";
  readonly provider = "scripted";
  readonly supportedUrls = {};

  constructor(
    private readonly turns: ScriptTurns,
    readonly modelId: string,
    private readonly chunkDelayMs: number,
  ) {}

  doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    return this.player().doGenerate(options);
  }

  doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    return this.player().doStream(options);
  }

  /** A fresh player per call: the turn comes from the prompt, so nothing is kept between calls. */
  private player(): ScriptedModel {
    return new ScriptedModel((view) => this.play(view), { modelId: this.modelId, chunkDelayMs: this.chunkDelayMs });
  }

  private play(view: ScriptView): ScriptedTurn {
    const conversation = conversationOf(view.prompt, view.tools);
    const n = conversation.turn;
    let turn: ScriptTurn | undefined;
    if (typeof this.turns === "function") {
      try {
        turn = this.turns(conversation);
      } catch (e) {
        return { error: `the script function threw at turn ${n + 1}: ${(e as Error).message}` };
      }
      const issues = oneTurnIssues(turn);
      if (issues.length)
        return { error: `the script function's turn ${n + 1} is malformed: ${describeIssues(issues)}` };
    } else {
      turn = this.turns[n];
      if (!turn) return { error: `the script has no turn ${n + 1} (it has ${this.turns.length})` };
    }
    return {
      reasoning: turn.reasoning,
      text: turn.text,
      usage: turn.usage,
      error: turn.error,
      toolCalls: turn.toolCalls?.map((c, i) => ({
        toolName: c.name,
        input: c.args ?? {},
        id: c.id ?? `call_${n}_${i}`,
      })),
    };
  }
}
