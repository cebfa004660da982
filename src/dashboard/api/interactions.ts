import { graphql, type ResultOf } from "tai42/client";

export const InteractionsQuery = graphql(`
  query Interactions($status: InteractionStatus) {
    interactions(status: $status) {
      id
      runId
      tool
      question
      to
      answerFormat
      status
      createdAt
      expiresAt
      answeredAt
      answer
    }
  }
`);

/** A question a parked run waits on (or waited on). */
export type Interaction = ResultOf<typeof InteractionsQuery>["interactions"][number];

/** Each interaction as it opens (PENDING) and as it closes (ANSWERED, EXPIRED, CANCELLED). */
export const InteractionsChangedSubscription = graphql(`
  subscription InteractionsChanged {
    interactionsChanged {
      id
      status
    }
  }
`);

/** The states an interaction moves through, in the order the screen offers them. */
export const INTERACTION_STATUSES = ["PENDING", "ANSWERED", "EXPIRED", "CANCELLED"] as const;
