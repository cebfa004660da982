import { AGENT_RUN_STATUSES, type AgentRunStatus } from "../agent/agent-runs.ts";
import { THREAD_MESSAGE_ROLES, type ThreadMessageRole } from "../agent/threads.ts";
import { ROLES, TIERS, type Role, type Tier } from "../auth/roles.ts";
import {
  DOORS,
  RUN_EVENT_TYPES,
  RUN_STATUSES,
  type Door,
  type RunEventType,
  type RunStatus,
} from "../dispatch/run-record.ts";
import { ERROR_KINDS, type ErrorKind } from "../errors.ts";
import {
  INTERACTION_RECIPIENTS,
  INTERACTION_STATUSES,
  type InteractionRecipient,
  type InteractionStatus,
} from "../interactions/park.ts";
import { builder } from "./builder.ts";

/**
 * Every closed set the API serves, as GraphQL enums with a description on each value.
 * A value's GraphQL name is what JSON carries: the lowercase sets (Door,
 * InteractionRecipient, ThreadMessageRole) keep the strings the API served before they
 * were enums (docs/api-changes.md).
 */

/** Enum values named as the domain spells them, each described. */
function described<const V extends string>(
  values: readonly V[],
  descriptions: Record<V, string>,
): { [K in V]: { value: K; description: string } } {
  return Object.fromEntries(values.map((v) => [v, { value: v, description: descriptions[v] }])) as {
    [K in V]: { value: K; description: string };
  };
}

/** Enum values named in upper case over the domain's lowercase values, each described. */
function upperOver<const V extends string>(
  values: readonly V[],
  descriptions: Record<V, string>,
): { [K in V as Uppercase<K>]: { value: K; description: string } } {
  return Object.fromEntries(values.map((v) => [v.toUpperCase(), { value: v, description: descriptions[v] }])) as never;
}

export const TierEnum = builder.enumType("Tier", {
  description: "A tool's permission tier; a role may run the tiers up to its own (docs/security-model.md §1).",
  values: upperOver(TIERS, {
    read: "Reads only; READER, USER and ADMIN may run it.",
    write: "Changes state; USER and ADMIN may run it.",
    fenced: "Admin-only to run, and to author a preset over.",
    secret: 'Admin-only like fenced; its inputs and outputs are never stored or published ("[redacted]").',
  } satisfies Record<Tier, string>),
});

export const RoleEnum = builder.enumType("Role", {
  description: "What an API key (or the anonymous caller, per TAI_ANONYMOUS_ROLE) may do.",
  values: described(ROLES, {
    READER: "Runs read tools and reads its own runs.",
    USER: "Also runs write tools and writes presets over read and write tools.",
    ADMIN: "Runs every tier, reads every run, manages keys, manifests and !ENV markers.",
  } satisfies Record<Role, string>),
});

export const ToolOriginEnum = builder.enumType("ToolOrigin", {
  description: "Where a name on the surface comes from.",
  values: {
    TOOL: { value: "TOOL", description: "A registered tool." },
    PRESET: { value: "PRESET", description: "A stored preset: a base tool with baked inputs." },
    BRANCH: { value: "BRANCH", description: "A tool wrapped in an extension stack by a manifest." },
    AGENT: { value: "AGENT", description: "An agent, callable as a tool." },
    CONNECTOR: {
      value: "CONNECTOR",
      description: "An upstream tool of a connector (an MCP server, an OpenAPI service).",
    },
  } as const,
});

export const ExecutionModeEnum = builder.enumType("ExecutionMode", {
  description: "How the agent loop runs a tool's calls within one model turn.",
  values: {
    SEQUENTIAL: { value: "sequential", description: "One call after the other." },
    PARALLEL: {
      value: "parallel",
      description: "All at once; results are still emitted in the order the model asked for them.",
    },
  } as const,
});

export const ExtensionKindEnum = builder.enumType("ExtensionKind", {
  description: "What an extension does to the tool it wraps.",
  values: {
    WRAPPER: { value: "WRAPPER", description: "Runs around the body and keeps the input schema." },
    TRANSFORMER: { value: "TRANSFORMER", description: "Changes the input schema." },
    BACKEND: { value: "BACKEND", description: "Relocates where the body executes (e.g. a worker thread)." },
  } as const,
});

export const ErrorKindEnum = builder.enumType("ErrorKind", {
  description: "The closed set a tool run fails with (docs/run-lifecycle.md).",
  values: described(ERROR_KINDS, {
    TIMEOUT: "An attempt ran past its timeout, or an interaction expired. Transient.",
    RATE_LIMITED: "The upstream asked to slow down. Transient.",
    UNAVAILABLE: "A service (or this server, shutting down) could not take the call. Transient.",
    NETWORK: "The network failed on the way. Transient.",
    UPSTREAM: "The upstream answered with an error.",
    INVALID_INPUT: "The input did not match the tool's schema, or a baked input was overridden.",
    PERMISSION_DENIED: "The caller's role may not run the tool's tier.",
    NOT_FOUND: "No tool by that name, or something the tool looked up does not exist.",
    CONFLICT: "The call clashed with the current state.",
    CANCELLED: "cancelRun, or the server shutting down, ended the run.",
    INTERNAL: "An unexpected failure; its message is never shown.",
    INTERRUPTED:
      "Its instance died mid-run and it was not re-run (status OUTCOME_UNKNOWN): its body may or may not have taken effect.",
  } satisfies Record<ErrorKind, string>),
});

export const RunStatusEnum = builder.enumType("RunStatus", {
  description: "Where a tool run is in its lifecycle.",
  values: described(RUN_STATUSES, {
    QUEUED: "A background run waiting for an instance to execute it.",
    RUNNING: "In flight.",
    SUCCEEDED: "Ended with a result.",
    FAILED: "Ended with an error kind and message.",
    PARKED: "Waiting on its interactions; answering them resumes it.",
    CANCELLED: "Ended by cancelRun or a server shutdown.",
    OUTCOME_UNKNOWN:
      "Its instance died mid-run and it was not re-run: its body may or may not have taken effect. An operator retries it (retryRun) or settles it (settleRun).",
  } satisfies Record<RunStatus, string>),
});

export const RunEventTypeEnum = builder.enumType("RunEventType", {
  description: "What happened to a run.",
  values: described(RUN_EVENT_TYPES, {
    RUN_QUEUED:
      "A background run was stored, or a run was handed back, re-driven or retried: it waits for an instance (status QUEUED).",
    RUN_STARTED: "The run was admitted and stored (synchronous), or an instance began executing it (queued).",
    ATTEMPT_FAILED: "An attempt failed and another will follow.",
    RUN_PROGRESS: "The running tool reported a partial update (ctx.onUpdate); see RunEvent.progress.",
    RUN_PARKED: "The run parked on interactions.",
    RUN_INTERRUPTED: "Its instance died mid-run and it was not re-run (status OUTCOME_UNKNOWN).",
    RUN_FINISHED: "The run ended (SUCCEEDED, FAILED or CANCELLED).",
  } satisfies Record<RunEventType, string>),
});

export const DoorEnum = builder.enumType("Door", {
  description: "The door a run came through. Values are lower case, as the API served them before this was an enum.",
  values: described(DOORS, {
    graphql: "The GraphQL dispatch mutation.",
    agent: "An agent's tool call.",
    extension: "A tool or extension calling another tool (ctx.runTool).",
    cli: "The tai command.",
    mcp: "The MCP endpoint.",
    runtime: "The server itself.",
  } satisfies Record<Door, string>),
});

export const AgentRunStatusEnum = builder.enumType("AgentRunStatus", {
  description: "Where an agent run is (docs/agent-stream.md).",
  values: described(AGENT_RUN_STATUSES, {
    RUNNING: "Streaming.",
    SUCCEEDED: "Ended with a message or structured answer.",
    INTERRUPTED: "Paused on an approval decision (InterruptFinal).",
    SUSPENDED: "Paused on a parked tool's interactions (SuspendedFinal).",
    ASKED: "Paused on questions to its caller (AsksFinal).",
    FAILED: "Ended with an error kind and message.",
    CANCELLED: "Ended by its caller or a server shutdown.",
    RESUMED: "Was paused; a later run on the thread resumed it.",
  } satisfies Record<AgentRunStatus, string>),
});

export const InteractionStatusEnum = builder.enumType("InteractionStatus", {
  description: "Where an interaction is: open (PENDING) or closed.",
  values: described(INTERACTION_STATUSES, {
    PENDING: "Open: waiting for its answer.",
    ANSWERED: "Answered; the run resumes once all its interactions are.",
    EXPIRED: "Closed unanswered at expiresAt; its run failed with TIMEOUT.",
    CANCELLED: "Closed because its run ended without it.",
  } satisfies Record<InteractionStatus, string>),
});

export const InteractionRecipientEnum = builder.enumType("InteractionRecipient", {
  description: "Who answers an interaction. Values are lower case, as the API served them before this was an enum.",
  values: described(INTERACTION_RECIPIENTS, {
    user: "A user of the platform.",
    caller: "The caller who started the run.",
  } satisfies Record<InteractionRecipient, string>),
});

export const ThreadMessageRoleEnum = builder.enumType("ThreadMessageRole", {
  description: "Who wrote a thread message. Values are lower case, as the API served them before this was an enum.",
  values: described(THREAD_MESSAGE_ROLES, {
    user: "The person (or caller) talking to the agent.",
    assistant: "The model.",
    tool: "A tool's result.",
  } satisfies Record<ThreadMessageRole, string>),
});
