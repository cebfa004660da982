import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The ambient session thread (docs/agent-stream.md §13): a thread id deposited for a
 * block of code, which an agent run started inside it without a `threadId` uses instead
 * of minting its own. Work started inside the block (promises, timers, tool handlers run
 * in process) inherits the deposit on a copy: a deposit made inside never leaks out.
 */
const ambient = new AsyncLocalStorage<string | null>();

/** What {@link setAgentSessionThread} returns: the value to restore. Opaque to callers. */
export interface AgentSessionThreadToken {
  readonly previous: string | null;
}

/**
 * Runs `fn` with `threadId` deposited as the ambient session thread and returns its
 * result. The deposit ends when `fn` settles, whatever happens; outside any wrap the
 * deposit is null and a run mints its own fresh thread.
 */
export function agentSessionThread<T>(threadId: string, fn: () => T): T {
  if (typeof threadId !== "string" || threadId.length < 1 || threadId.length > 200)
    throw new TypeError("agentSessionThread: threadId must be a string of 1 to 200 characters");
  return ambient.run(threadId, fn);
}

/** The session thread deposited for the current run, or null when none is set. */
export function getAgentSessionThread(): string | null {
  return ambient.getStore() ?? null;
}

/**
 * Binds `threadId` (or null, to clear it) as the session thread of the current execution
 * and what it starts from here on. Pass the returned token to
 * {@link resetAgentSessionThread} to restore the previous value.
 */
export function setAgentSessionThread(threadId: string | null): AgentSessionThreadToken {
  const token = { previous: getAgentSessionThread() };
  ambient.enterWith(threadId);
  return token;
}

/** Restores the session thread captured in `token` (the matching {@link setAgentSessionThread}'s return). */
export function resetAgentSessionThread(token: AgentSessionThreadToken): void {
  ambient.enterWith(token.previous);
}

/**
 * Runs `fn` with no ambient session thread. An agent run executes this way: the thread it
 * took from the ambient is its own while it runs, so an agent-as-tool it calls mints a
 * fresh thread rather than colliding with it.
 */
export function withoutAgentSessionThread<T>(fn: () => T): T {
  return ambient.run(null, fn);
}
