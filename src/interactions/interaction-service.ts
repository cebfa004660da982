import type { Caller } from "../auth/roles.ts";
import { mayAnswer } from "../auth/ownership.ts";
import { maySeeRun, runScope } from "../auth/visibility.ts";
import { visibleRecords } from "../dispatch/visible-records.ts";
import type { Dispatcher } from "../dispatch/dispatcher.ts";
import type { RunRecord } from "../dispatch/run-record.ts";
import type { RunStore } from "../dispatch/run-store.ts";
import { unstorableIssues } from "../db/storable.ts";
import { ApiError, describeIssues, type Issue } from "../errors.ts";
import type { Logger } from "../log.ts";
import { validate } from "../tools/json-schema.ts";
import type { InteractionStore } from "./interaction-store.ts";
import type { InteractionRecord, InteractionStatus } from "./park.ts";

/**
 * Answers and expiry of interactions (docs/run-lifecycle.md §5). An answer is validated against the
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

  /** The newest 500 interactions of runs `caller` may see (auth/visibility.ts). */
  list(status: InteractionStatus | undefined, caller: Caller): Promise<InteractionRecord[]> {
    return visibleRecords(this.runs, runScope(caller), 500, (skip, take) => this.store.list(status, take, skip));
  }

  /** The stored interaction, whoever may see it: callers check its run's visibility. */
  get(id: string): Promise<InteractionRecord | null> {
    return this.store.get(id);
  }

  forRun(runId: string): Promise<InteractionRecord[]> {
    return this.store.forRun(runId);
  }

  /**
   * Answers as an API caller: only an interaction of a run the caller may see (its own;
   * any for an ADMIN), so "caller" interactions are answered by that caller or an ADMIN. A
   * READER answers only the "caller" questions of its own runs.
   */
  async answer(id: string, answer: unknown, caller: Caller): Promise<RunRecord> {
    const interaction = await this.answerable(id, caller);
    return this.accept(interaction, answer);
  }

  /**
   * Answers several interactions at once (an agent resume's `answers`), all or none:
   * every answer is checked first (each refusal names its path under `at`), then all are
   * stored in one transaction; an answer that lost a race (answered meanwhile) rolls
   * them all back as CONFLICT. Each run whose park is then answered is resumed.
   */
  async answerAll(answers: Record<string, unknown>, caller: Caller, at = "/answers"): Promise<void> {
    const checked: [InteractionRecord, unknown][] = [];
    const issues: Issue[] = [];
    for (const [id, answer] of Object.entries(answers)) {
      const interaction = await this.answerable(id, caller);
      await this.checkOpen(interaction);
      issues.push(...under(`${at}/${id}`, answerIssues(interaction, answer)));
      checked.push([interaction, answer]);
    }
    if (issues.length)
      throw ApiError.badInput(`the answers were refused, and none was stored: ${describeIssues(issues)}`, issues);
    const lost = await this.store.answerAll(checked.map(([i, answer]) => ({ id: i.id, answer })));
    if (lost)
      throw new ApiError("CONFLICT", `interaction "${lost}" was answered meanwhile; none of the answers was stored`);
    for (const [i] of checked) this.log.info("interaction answered", { interactionId: i.id, runId: i.runId });
    for (const runId of new Set(checked.map(([i]) => i.runId)))
      if ((await this.runs.get(runId))?.status === "PARKED") await this.dispatcher.resume(runId);
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
    for (const runId of runIds)
      await this.dispatcher.endParked(runId, "FAILED", "an interaction expired before it was answered", "TIMEOUT");
    return runIds.length;
  }

  /** The interaction, if `caller` may answer it: NOT_FOUND for one of a run it may not see, FORBIDDEN for a READER. */
  private async answerable(id: string, caller: Caller): Promise<InteractionRecord> {
    const interaction = await this.store.get(id);
    const run = interaction && (await this.runs.get(interaction.runId));
    // An interaction of a run the caller may not see does not exist for it.
    if (!interaction || !run || !maySeeRun(caller, run))
      throw new ApiError("NOT_FOUND", `no interaction with id "${id}"`);
    // A question addressed to the caller (ask_caller) is answered by that caller, whatever its role.
    if (!mayAnswer(caller, interaction.to, run))
      throw new ApiError(
        "FORBIDDEN",
        "a READER may not answer interactions (only the questions its own runs ask it as their caller)",
      );
    return interaction;
  }

  /** CONFLICT unless the interaction is PENDING and not past its expiry (an expired one is expired now). */
  private async checkOpen(interaction: InteractionRecord): Promise<void> {
    if (interaction.status !== "PENDING")
      throw new ApiError(
        "CONFLICT",
        `interaction "${interaction.id}" is ${interaction.status.toLowerCase()}; it accepts no answer`,
      );
    if (interaction.expiresAt && new Date(interaction.expiresAt) < new Date()) {
      await this.expireDue();
      throw new ApiError("CONFLICT", `interaction "${interaction.id}" expired at ${interaction.expiresAt}`);
    }
  }

  private async accept(interaction: InteractionRecord, answer: unknown): Promise<RunRecord> {
    await this.checkOpen(interaction);
    const unstorable = unstorableIssues(answer, "/answer");
    if (unstorable.length)
      throw ApiError.badInput(`the answer cannot be stored: ${describeIssues(unstorable)}`, unstorable);
    const issues = answerIssues(interaction, answer);
    if (issues.length)
      throw ApiError.badInput(
        `the answer does not match the interaction's answerFormat: ${describeIssues(issues)}`,
        under("/answer", issues),
      );
    if (!(await this.store.answer(interaction.id, answer)))
      throw new ApiError("CONFLICT", `interaction "${interaction.id}" was already answered`);
    this.log.info("interaction answered", { interactionId: interaction.id, runId: interaction.runId });
    const run = await this.runs.get(interaction.runId);
    if (run?.status !== "PARKED") return run!;
    return (await this.dispatcher.resume(interaction.runId)).run;
  }
}

/** Why `answer` cannot answer `interaction` (paths inside the answer): unstorable, or not its `answerFormat`. */
function answerIssues(interaction: InteractionRecord, answer: unknown): Issue[] {
  const unstorable = unstorableIssues(answer);
  if (unstorable.length || !interaction.answerFormat) return unstorable;
  return validate(interaction.answerFormat, answer);
}

/** `issues` with their paths under `at`. */
function under(at: string, issues: Issue[]): Issue[] {
  return issues.map((i) => ({ path: `${at}${i.path}`, message: i.message }));
}
