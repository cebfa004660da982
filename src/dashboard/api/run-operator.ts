import { graphql } from "tai42/client";

/** The outcomes an operator may settle a run whose outcome is unknown with (SettledStatus). */
export const SETTLED_STATUSES = ["SUCCEEDED", "FAILED", "CANCELLED"] as const;
export type SettledStatus = (typeof SETTLED_STATUSES)[number];

/** Queues a run whose outcome is unknown to be executed again, under the same id. */
export const RetryRunMutation = graphql(`
  mutation RetryRun($id: ID!) {
    retryRun(id: $id) {
      id
      status
    }
  }
`);

/** Ends a run whose outcome is unknown with the outcome the operator established. */
export const SettleRunMutation = graphql(`
  mutation SettleRun($id: ID!, $status: SettledStatus!, $message: String) {
    settleRun(id: $id, status: $status, message: $message) {
      id
      status
    }
  }
`);
