import type { Caller } from "../auth/roles.ts";
import type { Dispatcher } from "../dispatch/run-tool.ts";
import type { RunRecord } from "../dispatch/run-record.ts";
import type { RunStore } from "../dispatch/run-store.ts";
import { ApiError, describeIssues } from "../errors.ts";
import type { Logger } from "../log.ts";
import { validate } from "../tools/json-schema.ts";
import type { InteractionStore } from "./interaction-store.ts";
import type { InteractionRecord } from "./park.ts";

/**
 * Answers and expiry of interactions (SPEC §9). An answer is validated against the
 * interaction's `answerFormat`, stored with a compare-and-set (a second answer is
 * refused), and, once the park's interactions are all answered, resumes the run from
 * its persisted state on whichever instance received the answer.
 */
export class InteractionService {
  constructor(
    private readonly store: InteractionStore,
    private readonly runs: RunStore,
    private readonly dispatcher: Dispatcher,
    private readonly log: Logger,
  ) {}

  list(status?: string): Promise<InteractionRecord[]> {
    return this.store.list(status);
  }

  forRun(runId: string): Promise<InteractionRecord[]> {
    return this.store.forRun(runId);
  }

  /** Answers as an API caller: "caller" interactions only by the run's caller or an ADMIN. */
  async answer(id: string, answer: unknown, caller: Caller): Promise<RunRecord> {
    const interaction = await this.store.get(id);
    if (!interaction) throw new ApiError("NOT_FOUND", `no interaction with id "${id}"`);
    const run = await this.runs.get(interaction.runId);
    if (interaction.to === "caller" && caller.role !== "ADMIN" && run?.callerKey !== caller.keyName)
      throw new ApiError("FORBIDDEN", "this interaction is addressed to the run's caller; only that caller or an ADMIN may answer it");
    if (caller.role === "READER") throw new ApiError("FORBIDDEN", "a READER may not answer interactions");
    return this.accept(interaction, answer);
  }

  /** Answers through a callback URL's token (ask_external): the token is the credential. */
  async answerByToken(token: string, answer: unknown): Promise<RunRecord> {
    const interaction = await this.store.byToken(token);
    if (!interaction) throw new ApiError("NOT_FOUND", "unknown callback");
    return this.accept(interaction, answer);
  }

  /** Fails the runs of interactions past their expiry with TIMEOUT. Safe on every instance at once. */
  async expireDue(): Promise<number> {
    const runIds = await this.store.expireDue();
    for (const runId of runIds) await this.dispatcher.endParked(runId, "FAILED", "an interaction expired before it was answered", "TIMEOUT");
    return runIds.length;
  }

  private async accept(interaction: InteractionRecord, answer: unknown): Promise<RunRecord> {
    if (interaction.status !== "PENDING") throw new ApiError("CONFLICT", `interaction "${interaction.id}" is ${interaction.status.toLowerCase()}; it accepts no answer`);
    if (interaction.expiresAt && new Date(interaction.expiresAt) < new Date()) {
      await this.expireDue();
      throw new ApiError("CONFLICT", `interaction "${interaction.id}" expired at ${interaction.expiresAt}`);
    }
    if (interaction.answerFormat) {
      const issues = validate(interaction.answerFormat, answer);
      if (issues.length) throw ApiError.badInput(`the answer does not match the interaction's answerFormat: ${describeIssues(issues)}`, issues.map((i) => ({ path: `/answer${i.path}`, message: i.message })));
    }
    if (!(await this.store.answer(interaction.id, answer))) throw new ApiError("CONFLICT", `interaction "${interaction.id}" was already answered`);
    this.log.info("interaction answered", { interactionId: interaction.id, runId: interaction.runId });
    const run = await this.runs.get(interaction.runId);
    if (run?.status !== "PARKED") return run!;
    return (await this.dispatcher.resume(interaction.runId)).run;
  }
}
