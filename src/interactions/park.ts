import type { JsonSchema } from "../tools/json-schema.ts";

/** Who answers an interaction: a user of the platform, or the caller who started the run. */
export const INTERACTION_RECIPIENTS = ["user", "caller"] as const;
export type InteractionRecipient = (typeof INTERACTION_RECIPIENTS)[number];

/** The statuses of an interaction: PENDING until answered, expired or cancelled. */
export const INTERACTION_STATUSES = ["PENDING", "ANSWERED", "EXPIRED", "CANCELLED"] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];

/** A question a parked run waits on. */
export interface InteractionRequest {
  question: string;
  /** Who answers. @default "user" */
  to?: InteractionRecipient;
  /** The answer must validate against this schema. @default any JSON */
  answerFormat?: JsonSchema;
  /** After this many seconds the run fails with TIMEOUT. @default no expiry */
  expiresInSeconds?: number;
  /** Also serve an unguessable callback URL that answers it with the POSTed JSON body. */
  callback?: boolean;
}

/** An interaction opened by a body before it parks (to hand its callback URL out first). */
export interface OpenedInteraction {
  id: string;
  /** Present when opened with `callback: true`. */
  callbackUrl?: string;
}

const PARK = Symbol.for("tai42.park");

/** What a pausing body returns to park its run until its interactions are answered. */
export interface Park {
  /** New interactions to open. */
  interactions?: InteractionRequest[];
  /** Interactions already opened with `ctx.openInteraction`. */
  interactionIds?: string[];
  /** Persisted with the park; handed to `resume` when every interaction is answered. */
  state?: unknown;
}

/**
 * Parks the run. Only tools in the pausing set (`pauses: true`) and branches of pausing
 * extensions may return a park; any other tool's park fails its run.
 */
export function park(init: Park): Park {
  return Object.defineProperty({ ...init }, PARK, { value: true, enumerable: false });
}

export function isPark(value: unknown): value is Park {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[PARK] === true;
}

/** A stored interaction as every read serves it. */
export interface InteractionRecord {
  id: string;
  runId: string;
  tool: string;
  question: string;
  to: InteractionRecipient;
  answerFormat: JsonSchema | null;
  status: InteractionStatus;
  expiresAt: string | null;
  answer: unknown;
  answeredAt: string | null;
  /** Only present right after opening (the token is never stored). */
  callbackUrl?: string | null;
  /** Whether it is answered through a callback URL (an external system), not by a person. */
  callback: boolean;
  createdAt: string;
}
