import { graphql, type ResultOf, type VariablesOf } from "tai42/client";

/*
 * The schedules API (docs/run-lifecycle.md §11.7), ADMIN only. The API has no schedule subscription: the screen
 * reloads after each write and on a short period, so a tick's run shows up.
 */

export const ScheduleFields = graphql(`
  fragment ScheduleFields on Schedule @_unmask {
    name
    tool
    input
    cron
    timeZone
    enabled
    version
    callerRole
    callerKey
    nextTickAt
    nextTicks(count: 3)
    lastTickAt
    lastRun {
      id
      status
    }
    createdAt
    updatedAt
  }
`);

/** One stored schedule as the screen shows it. */
export type Schedule = ResultOf<typeof ScheduleFields>;

export const SchedulesQuery = graphql(
  `
    query Schedules {
      schedules {
        ...ScheduleFields
      }
    }
  `,
  [ScheduleFields],
);

/** Creates (no `expectedVersion`) or replaces the version read (else CONFLICT); nothing is stored on a refusal. */
export const PutScheduleMutation = graphql(
  `
    mutation PutSchedule($input: ScheduleInput!, $expectedVersion: Int) {
      putSchedule(input: $input, expectedVersion: $expectedVersion) {
        ...ScheduleFields
      }
    }
  `,
  [ScheduleFields],
);

export type ScheduleInput = VariablesOf<typeof PutScheduleMutation>["input"];

export const DeleteScheduleMutation = graphql(`
  mutation DeleteSchedule($name: String!) {
    deleteSchedule(name: $name)
  }
`);

/** The put that keeps a schedule as stored and only turns it on or off (pause / resume). */
export function withEnabled(s: Schedule, enabled: boolean): ScheduleInput {
  return { name: s.name, tool: s.tool, input: s.input, cron: s.cron, timeZone: s.timeZone, enabled };
}
