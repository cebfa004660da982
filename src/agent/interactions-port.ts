import type { Caller } from "../auth/roles.ts";
import type { RunRecord } from "../dispatch/run-record.ts";
import type { InteractionRecord } from "../interactions/park.ts";

/** What agents need from the interactions layer (issue 4): reading and answering parks. */
export interface InteractionsPort {
  forRun(runId: string): Promise<InteractionRecord[]>;
  /** One interaction, whoever may see it. */
  get(id: string): Promise<InteractionRecord | null>;
  /** Validates and stores an answer, then resumes the parked run. Throws ApiError on refusal. */
  answer(id: string, answer: unknown, caller: Caller): Promise<RunRecord>;
  /**
   * Validates every answer, then stores all or none and resumes the parked runs; refusals name paths under `at`. Throws
   * ApiError on refusal.
   */
  answerAll(answers: Record<string, unknown>, caller: Caller, at: string): Promise<void>;
}
