import { randomUUID } from "node:crypto";
import type { Caller } from "../auth/roles.ts";
import { isOwnerOrAdmin, mayUseThread, threadOwnerKey } from "../auth/ownership.ts";
import { lowerRole, storedRole } from "../auth/role-order.ts";
import { inScope, outOfScope } from "../auth/key-scope.ts";
import { mayRun } from "../auth/tiers.ts";
import { unstorableIssues } from "../db/storable.ts";
import { ApiError, describeIssues } from "../errors.ts";
import { reportedZodIssues } from "../validation/declaration.ts";
import type { AgentClass, AgentRunOptions } from "./agent.ts";
import { PAUSED, type AgentRunRecord } from "./agent-runs.ts";
import { checkRunOptions, storableOptions } from "./run-options.ts";
import { getAgentSessionThread } from "./session-thread.ts";
import { takeLiveTools } from "./subagents/live-tools.ts";
import type { AgentHost, AgentServiceDeps, StartedRun, StartRequest } from "./agent-host.ts";
import type { SecretScope } from "../secrets/secrets.ts";
import { admitFork, type Fork } from "./fork.ts";

export const DEFAULT_AGENT = "tools_agent";

/** A start that passed admission: its run is stored RUNNING, ready to launch. */
export interface AdmittedRun extends StartedRun {
  agentInstance: InstanceType<AgentClass>;
  /** The options the run starts with: parsed, inherited from the paused run on a resume, with the thread. */
  options: AgentRunOptions;
  /** The caller the run acts as: on a resume, never above the paused run's role. */
  caller: Caller;
  /** The paused run this one resumes (already claimed), or null. */
  resuming: AgentRunRecord | null;
  /** What the agent's `prepare` returned. */
  prepared: unknown;
  /** The run's checkpoint in its thread: the last thread row before it ran (docs/agent-stream.md §6.1). */
  mark?: number;
  /**
   * The seq its events number on from: 0 for a new run; a continuation's SuspendedFinal (docs/agent-stream.md §7.1).
   */
  seqBase?: number;
  /** A continuation's tool steps already stored (`agent-runner.ts` stepKey): not stored again. */
  storedSteps?: Set<string>;
  /** What the run scrubs what it stores and streams with (`StartRequest.secrets`); absent: a scope of the runtime's. */
  secrets?: SecretScope;
}

/** What admission reads and writes of the agent host. */
type Admitting = Pick<AgentHost, "store" | "threads" | "services" | "classes" | "continueSuspended">;

/** The request's options without unset ones, its live tools taken out, and the session's thread when it names none. */
function normaliseOptions(req: StartRequest): ReturnType<typeof takeLiveTools> {
  const given = Object.fromEntries(
    Object.entries(req.options).filter(([, v]) => v !== undefined && v !== null),
  ) as AgentRunOptions;
  const live = takeLiveTools(given);
  const ambientThread = getAgentSessionThread();
  if (live.options.threadId === undefined && ambientThread !== null) live.options.threadId = ambientThread;
  return live;
}

/**
 * A resume's paused run, checked (the caller's, paused, the one named, of the agent named) and its stored options
 * inherited under the request's.
 */
async function admitResume(
  agents: Admitting,
  req: StartRequest,
  options: AgentRunOptions,
  agentName: string | undefined,
): Promise<{ options: AgentRunOptions; agentName: string; resuming: AgentRunRecord }> {
  if (!options.threadId)
    throw ApiError.badInput("resume needs the threadId of the paused run", [
      { path: "/threadId", message: "is required with resume" },
    ]);
  if (options.userMessage !== undefined)
    throw ApiError.badInput("userMessage cannot be sent with resume: the paused turn is answered first", [
      { path: "/userMessage", message: "is not allowed with resume" },
    ]);
  const paused = await agents.store.latestOnThread(options.threadId);
  // Another caller's thread does not exist for this one: the same refusal as an absent one.
  if (!paused || !isOwnerOrAdmin(req.caller, paused)) throw threadNotFound("has no agent run to resume");
  if (!PAUSED.includes(paused.status))
    throw new ApiError(
      "CONFLICT",
      `thread "${options.threadId}" has nothing to resume: its last run ${paused.id} is ${paused.status}`,
    );
  if (options.resumeCheckpointId && options.resumeCheckpointId !== paused.id)
    throw new ApiError(
      "CONFLICT",
      `resumeCheckpointId "${options.resumeCheckpointId}" is not the paused run of this thread (${paused.id})`,
      [{ path: "/resumeCheckpointId", message: "is stale" }],
    );
  if (agentName && agentName !== paused.agent)
    throw ApiError.badInput(`the paused run belongs to agent "${paused.agent}", not "${agentName}"`, [
      { path: "/agent", message: `must be "${paused.agent}"` },
    ]);
  const inherited = Object.fromEntries(
    Object.entries(paused.input).filter(([k]) => !["resume", "userMessage", "resumeCheckpointId"].includes(k)),
  );
  // The paused run is named in the stored options whether or not the request echoed it: AgentRun.resumeOf reads it.
  return {
    options: { ...inherited, ...options, resumeCheckpointId: paused.id },
    agentName: paused.agent,
    resuming: paused,
  };
}

/** The agent class named (the default when none is), which the caller's role may run. */
function agentClass(agents: Admitting, req: StartRequest, agentName: string | undefined) {
  const name = agentName ?? DEFAULT_AGENT;
  const cls = agents.classes().get(name);
  if (!cls)
    throw ApiError.badInput(`no agent named "${name}" (known: ${[...agents.classes().keys()].join(", ")})`, [
      { path: "/agent", message: `no agent named "${name}"` },
    ]);
  // The agent's own tier holds at this door as at the dispatch chokepoint (where it runs as a tool).
  if (!mayRun(req.caller.role, cls.tier))
    throw new ApiError("FORBIDDEN", `role ${req.caller.role} may not run ${cls.tier}-tier agent "${name}"`);
  if (!inScope(req.caller, name)) throw new ApiError("FORBIDDEN", outOfScope(req.caller, name));
  return { name, cls };
}

/** The run's thread (a new one when none is named), checked; a new run's thread must be the caller's and idle. */
async function admitThread(
  agents: Admitting,
  req: StartRequest,
  options: AgentRunOptions,
  resuming: AgentRunRecord | null,
): Promise<string> {
  const threadId = options.threadId ?? randomUUID();
  if (typeof threadId !== "string" || threadId.length < 1 || threadId.length > 200)
    throw ApiError.badInput("threadId must be 1 to 200 characters", [
      { path: "/threadId", message: "must be 1 to 200 characters" },
    ]);
  if (!resuming) {
    await checkThread(agents, threadId, req.caller);
    const running = await agents.store.runningOnThread(threadId);
    if (running)
      throw new ApiError("CONFLICT", `thread "${threadId}" has a run in progress (${running.id}); wait for it to end`);
  }
  return threadId;
}

/** The options checked (names, storability) and parsed by the agent's ToolInput. */
function parseInput(
  agents: Admitting,
  cls: AgentClass,
  name: string,
  options: AgentRunOptions,
): Record<string, unknown> {
  checkRunOptions(cls, options, agents.services.plugins);
  const unstorable = unstorableIssues(storableOptions(options));
  if (unstorable.length)
    throw ApiError.badInput(`invalid input for agent "${name}": ${describeIssues(unstorable)}`, unstorable);
  const parsed = cls.ToolInput.safeParse(options);
  if (!parsed.success) {
    const issues = reportedZodIssues(parsed.error);
    throw ApiError.badInput(`invalid input for agent "${name}": ${describeIssues(issues)}`, issues);
  }
  return parsed.data as Record<string, unknown>;
}

/** Where a start stands once its options are admitted. */
interface Admitted {
  cls: AgentClass;
  options: AgentRunOptions;
  threadId: string;
  resuming: AgentRunRecord | null;
  fork: Fork | null;
}

/**
 * Claims the paused run of a resume, then lets the agent prepare; a refused `prepare` gives the claim back. The caller
 * the run acts as never rises above the resumed or forked run's role.
 */
async function claimAndPrepare(agents: Admitting, req: StartRequest, a: Admitted) {
  const { resuming, fork } = a;
  const agent = new a.cls();
  // Claimed before `prepare`, which may answer the run's interactions: the continuation
  // their answers would start then loses to this resume (docs/agent-stream.md §7.1).
  if (resuming && !(await agents.store.claim(resuming.id)))
    throw new ApiError("CONFLICT", `the paused run ${resuming.id} was already resumed`);
  let prepared: unknown;
  // A resume or a fork never raises the rights the conversation ran with: an ADMIN who
  // approves a USER's pending call, or forks a USER's failed run, lets it go on with the
  // USER's role. The new run records that role, so no later continuation regains more.
  const base = resuming ?? fork?.run ?? null;
  const caller: Caller = base
    ? { ...req.caller, role: lowerRole(req.caller.role, storedRole(base.callerRole)) }
    : req.caller;
  try {
    prepared = await agent.prepare(a.options, {
      caller: req.caller,
      threadId: a.threadId,
      services: agents.services,
      resuming,
      forking: fork,
    });
  } catch (e) {
    if (resuming) await giveBack(agents, resuming);
    throw e;
  }
  return { agent, prepared, caller };
}

/**
 * Stores the run RUNNING at its checkpoint in the thread (a fork's rewind), unless a rival took the thread; any
 * refusal undoes what was stored and gives a resume's claim back.
 */
async function storeRun(
  agents: Admitting,
  deps: Pick<AgentServiceDeps, "instanceId">,
  req: StartRequest,
  a: Admitted,
  caller: Caller,
  secrets: SecretScope,
): Promise<{ runId: string; mark: number }> {
  const { threadId, resuming, fork } = a;
  const runId = randomUUID();
  let created = false;
  let rewound: number | null = null;
  let mark: number;
  try {
    checkThreadOwner(await agents.threads.ensure(threadId, threadOwnerKey(req.caller)), req.caller);
    // A fork rewinds the thread to its checkpoint: the rewind is the fork's own checkpoint.
    mark = fork ? (rewound = await agents.threads.rewind(threadId, fork.mark)) : await agents.threads.mark(threadId);
    await agents.store.create({
      id: runId,
      agent: a.cls.toolName,
      threadId,
      input: secrets.scrub(storableOptions(a.options)) as Record<string, unknown>,
      callerRole: caller.role,
      callerKey: caller.keyName,
      checkpoint: {
        instanceId: deps.instanceId,
        resumes: resuming?.id ?? null,
        ...(fork ? { forks: fork.run.id } : {}),
        mark,
      },
      startedAt: new Date().toISOString(),
    });
    created = true;
    const rival = await agents.store.rivalOnThread(threadId, runId, resuming);
    if (rival)
      throw new ApiError(
        "CONFLICT",
        rival.status === "RUNNING"
          ? `thread "${threadId}" has a run in progress (${rival.id}); wait for it to end`
          : `thread "${threadId}" moved on since run ${resuming!.id} paused (run ${rival.id}); there is nothing to resume`,
      );
  } catch (e) {
    if (created) await agents.store.discard(runId);
    if (rewound !== null) await agents.threads.dropRewind(rewound);
    if (resuming) await giveBack(agents, resuming);
    throw e;
  }
  return { runId, mark };
}

/**
 * Admission of a start (docs/agent-stream.md §3.1, §6): options and agent validated, the
 * thread's owner checked, a paused run claimed for a resume, the run stored, and no rival
 * running the thread. Every rejection is an ApiError, and leaves nothing stored.
 */
export async function admitStart(
  agents: Admitting,
  deps: Pick<AgentServiceDeps, "secrets" | "instanceId">,
  req: StartRequest,
): Promise<AdmittedRun> {
  const live = normaliseOptions(req);
  let options = live.options;
  let agentName = req.agent ?? undefined;
  let resuming: AgentRunRecord | null = null;
  let fork: Fork | null = null;
  if (options.resume === undefined && options.resumeCheckpointId !== undefined) {
    const admitted = await admitFork(agents, req, options);
    ({ fork, options } = admitted);
    agentName = admitted.agent;
  }
  if (options.resume !== undefined)
    ({ options, agentName, resuming } = await admitResume(agents, req, options, agentName));
  const { name, cls } = agentClass(agents, req, agentName);
  const threadId = await admitThread(agents, req, options, resuming);
  const parsed = parseInput(agents, cls, name, options);
  options = live.attach({ ...options, ...parsed, threadId });
  const admitted: Admitted = { cls, options, threadId, resuming, fork };
  const { agent, prepared, caller } = await claimAndPrepare(agents, req, admitted);
  // A run an agent-as-tool call starts scrubs what its calling run learned too (docs/security-model.md §2).
  const secrets = req.secrets ?? deps.secrets.scope();
  const { runId, mark } = await storeRun(agents, deps, req, admitted, caller, secrets);
  const run = { runId, threadId, agent: cls.toolName, agentInstance: agent, options, caller, resuming, prepared, mark };
  return { ...run, secrets };
}

/**
 * Undoes a resume's claim. A suspended run whose answers came in meanwhile (some inside
 * the refused resume) continues by itself.
 */
async function giveBack(agents: Pick<AgentHost, "store" | "continueSuspended">, paused: AgentRunRecord): Promise<void> {
  await agents.store.unclaim(paused.id, paused.status);
  if (paused.status === "SUSPENDED" || paused.status === "ASKED") await agents.continueSuspended(paused.id);
}

/**
 * Only the thread's owner (the caller who created it: same key, or both anonymous) or an
 * ADMIN may use, read or write a thread; for anyone else it does not exist (NOT_FOUND,
 * naming neither the thread nor its runs). A thread from before owners were recorded
 * belongs to the caller of its first run. False when the thread does not exist yet.
 */
export async function checkThread(
  agents: Pick<AgentHost, "store" | "threads">,
  threadId: string,
  caller: Caller,
): Promise<boolean> {
  const owner = await agents.threads.owner(threadId);
  if (owner === undefined) return false;
  if (!(await mayUseStoredThread(agents, threadId, owner, caller)))
    throw threadNotFound("is not a thread of this caller");
  return true;
}

/**
 * Whether `caller` may use the existing thread recorded with `owner` (null: none recorded; its first run's caller owns
 * it).
 */
export async function mayUseStoredThread(
  agents: Pick<AgentHost, "store">,
  threadId: string,
  owner: string | null,
  caller: Caller,
): Promise<boolean> {
  if (owner !== null) return mayUseThread(caller, owner);
  const first = await agents.store.firstOnThread(threadId);
  return !first || isOwnerOrAdmin(caller, first);
}

/** NOT_FOUND unless the caller owns the thread (`owner`, as `threadOwnerKey` records it) or is an ADMIN. */
export function checkThreadOwner(owner: string | null, caller: Caller): void {
  if (!mayUseThread(caller, owner)) throw threadNotFound("is not a thread of this caller");
}

/** The one refusal for a thread the caller may not use or that does not exist: it names no thread id and no run id. */
export function threadNotFound(why: string): ApiError {
  return new ApiError("NOT_FOUND", `the threadId ${why}`, [{ path: "/threadId", message: why }]);
}
