import type { CreateTaskOptions, TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import {
  ErrorCode,
  McpError,
  type CallToolRequest,
  type Request,
  type RequestId,
  type Result,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { TIERS, type Caller } from "../auth/roles.ts";
import { mayRun } from "../auth/tiers.ts";
import { startedByKey } from "../auth/ownership.ts";
import type { RunScope } from "../auth/visibility.ts";
import type { RunRecord } from "../dispatch/run-record.ts";
import type { Runtime } from "../runtime.ts";
import { scrubRun } from "../secrets/value-fields.ts";
import { callResult } from "./call-result.ts";
import { masked } from "./masked.ts";
import { callOptions } from "./tool-call.ts";

/** How often a client should poll `tasks/get`, and how often the SDK's `tasks/result` looks again (ms). */
export const TASK_POLL_MS = 1000;
/** Tasks a `tasks/list` page holds. */
const LIST_PAGE = 50;

/**
 * MCP tasks backed by the Run table (docs/mcp.md §5, "Background runs as MCP tasks"): a task is a run the caller
 * started through the MCP door, its id the run id. `createTask` starts the `tools/call` as a background run through
 * the chokepoint (QUEUED, executed by whichever instance has capacity); the status, the result and a cancellation
 * are the run's, so a task outlives the instance that created it and is answered by any instance. One store serves
 * one caller: a run another caller started (an ADMIN's other callers' runs too) is no task of its, answered as a task
 * that does not exist. The session id the SDK passes is not used: the caller, not the session, owns a task.
 */
export class RunTaskStore implements TaskStore {
  constructor(
    private readonly rt: Runtime,
    private readonly caller: Caller,
  ) {}

  /** Starts the `tools/call` `request` as a background run; its task, `working` (the run QUEUED). */
  createTask(_task: CreateTaskOptions, requestId: RequestId, request: Request): Promise<Task> {
    return masked(this.rt, async () => {
      const params = request.params as CallToolRequest["params"];
      const { idempotencyKey, timeoutSeconds } = callOptions(params._meta);
      const run = await this.rt.dispatcher.run({
        tool: params.name,
        input: params.arguments ?? {},
        caller: this.caller,
        door: "mcp",
        idempotencyKey,
        timeoutSeconds,
        toolCallId: String(requestId),
        background: true,
      });
      // A run refused at admission (an unknown tool, a tier, invalid input) is a task already failed, as stored.
      return this.taskOf(run);
    });
  }

  getTask(taskId: string): Promise<Task | null> {
    return masked(this.rt, async () => {
      const run = await this.own(taskId);
      return run ? this.taskOf(run) : null;
    });
  }

  /** The run's answer as a synchronous `tools/call` gives it; asked by the SDK once the task is terminal. */
  getTaskResult(taskId: string): Promise<Result> {
    return masked(this.rt, async () => {
      const run = await this.own(taskId);
      if (!run) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
      return callResult(scrubRun(this.rt.secrets, run), this.rt.surface.base(run.tool));
    });
  }

  /** Never asked of this door: a task's result is its run's outcome, stored by the chokepoint as the run ends. */
  storeTaskResult(taskId: string): Promise<void> {
    return Promise.reject(
      new McpError(
        ErrorCode.InvalidRequest,
        `the result of task ${taskId} is its run's outcome; it is not stored apart`,
      ),
    );
  }

  /**
   * `cancelled` (the SDK's `tasks/cancel`) cancels the run through the chokepoint and resolves once it has ended;
   * a run's other statuses are its own to reach.
   */
  updateTaskStatus(taskId: string, status: Task["status"]): Promise<void> {
    return masked(this.rt, async () => {
      if (status !== "cancelled")
        throw new McpError(ErrorCode.InvalidRequest, `a task's status is its run's: it cannot be set to ${status}`);
      if (!(await this.own(taskId))) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
      await this.rt.dispatcher.cancelFor(this.caller, taskId);
    });
  }

  /** The caller's tasks, newest first, {@link LIST_PAGE} a page; the cursor names the last task of the page. */
  listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    return masked(this.rt, async () => {
      const after = cursor === undefined ? undefined : await this.own(cursor);
      if (cursor !== undefined && !after) throw new McpError(ErrorCode.InvalidParams, `invalid cursor: ${cursor}`);
      const at = after ? { startedAt: new Date(after.startedAt), id: after.id } : undefined;
      const runs = await this.rt.runs.list({ door: "mcp" }, LIST_PAGE, at, this.scope());
      const tasks = runs.map((r) => this.taskOf(r));
      return runs.length === LIST_PAGE ? { tasks, nextCursor: runs[runs.length - 1]!.id } : { tasks };
    });
  }

  /** The run `id` when it is one of this caller's MCP runs; null otherwise, as for a run that does not exist. */
  private async own(id: string): Promise<RunRecord | null> {
    const run = await this.rt.runs.get(id);
    if (!run || run.door !== "mcp") return null;
    const { keyId, tiers } = this.scope();
    // The caller's own runs only, whatever its role (docs/security-model.md §2 without an ADMIN's view of all).
    return run.tier && (tiers as readonly string[]).includes(run.tier) && startedByKey(keyId, run) ? run : null;
  }

  /** This caller's runs within the tiers its role may run (an ADMIN's scope is its own runs too). */
  private scope(): Extract<RunScope, { all: false }> {
    return { all: false, keyId: this.caller.keyId, tiers: TIERS.filter((t) => mayRun(this.caller.role, t)) };
  }

  /** A run as an MCP task; its status message scrubbed of the runtime's secrets. */
  private taskOf(run: RunRecord): Task {
    const { status, statusMessage } = taskStatus(scrubRun(this.rt.secrets, run));
    const last = run.attempts[run.attempts.length - 1];
    return {
      taskId: run.id,
      status,
      ...(statusMessage ? { statusMessage } : {}),
      // Kept as long as the run is: the Run table has no expiry of its own.
      ttl: null,
      createdAt: run.startedAt,
      lastUpdatedAt: run.finishedAt ?? last?.finishedAt ?? last?.startedAt ?? run.startedAt,
      pollInterval: TASK_POLL_MS,
    };
  }
}

/**
 * A run's status as an MCP task's (docs/mcp.md §5): QUEUED and RUNNING are `working`, PARKED `input_required` (its
 * interactions are answered over GraphQL), SUCCEEDED `completed`, CANCELLED `cancelled`, FAILED and OUTCOME_UNKNOWN
 * `failed`, the message naming the error kind and message the run records.
 */
export function taskStatus(run: RunRecord): { status: Task["status"]; statusMessage?: string } {
  const error = `${run.errorKind ?? run.status}: ${run.errorMessage ?? "the run did not succeed"}`;
  switch (run.status) {
    case "QUEUED":
      return { status: "working", statusMessage: `run ${run.id} is queued for an instance with capacity` };
    case "RUNNING":
      return { status: "working", statusMessage: `run ${run.id} is running (attempt ${run.attempts.length || 1})` };
    case "PARKED":
      return {
        status: "input_required",
        statusMessage: `run ${run.id} is parked, waiting on its interactions; answer with answerInteraction over GraphQL`,
      };
    case "SUCCEEDED":
      return { status: "completed" };
    case "CANCELLED":
      return { status: "cancelled", statusMessage: error };
    case "FAILED":
    case "OUTCOME_UNKNOWN":
      return { status: "failed", statusMessage: error };
  }
}
