import type { Caller } from "../auth/roles.ts";
import type { ErrorKind } from "../errors.ts";
import { Breakers } from "./breaker.ts";
import { isRefusal, type LimitBackend, type Slot } from "./limit-backend.ts";
import type { Limits, RateLimit } from "./limits.ts";
import { SlotQueue } from "./slot-queue.ts";

/** The limits a run is under: each declaration along its entry's chain, with the name it was declared on. */
export type AppliedLimits = readonly { name: string; limits: Limits }[];

/** Why a limit refused a dispatch (the `reason` label of `tai42_limited_total`). */
export type LimitReason = "breaker" | "rate" | "concurrency" | "admission";

/** A dispatch a limit stopped: it ends `kind` with the time to retry; its body is never called. */
export interface Refusal {
  kind: Extract<ErrorKind, "RATE_LIMITED" | "UNAVAILABLE">;
  reason: LimitReason;
  message: string;
  retryAfterSeconds: number;
  /** The name whose declaration refused it. */
  declaredOn: string;
}

/** The failures a breaker counts. */
const TRANSIENT: ReadonlySet<string> = new Set(["UNAVAILABLE", "TIMEOUT", "RATE_LIMITED"]);

/** The mark, among a run's trials, that `name` had failures counted when the run was admitted. */
const failing = (name: string) => `${name}\u0000failing`;
const keyOf = (caller: Caller) => caller.keyId ?? `anonymous:${caller.role}`;
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The value at a JSON pointer of `input`, as the part of a counter's key it makes (absent: its own value). */
function pointed(input: unknown, pointer: string): string {
  let at: unknown = input;
  for (const raw of pointer.split("/").slice(1)) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    at = at !== null && typeof at === "object" ? (at as Record<string, unknown>)[part] : undefined;
  }
  return at === undefined ? "\u0000absent" : JSON.stringify(at);
}

/**
 * Flow control at the chokepoint (docs/flow-control.md): breakers and rates checked before a run is stored,
 * concurrency slots taken before its body runs and held to its outcome, every attempt's outcome told to the breakers.
 * One instance per runtime; its counters live in the limits' backend (this process, Redis or PostgreSQL).
 */
export class FlowControl {
  private readonly breakers: Breakers;
  readonly slots: SlotQueue;
  private readonly refused = new Map<string, number>();
  /** Names whose breaker this instance saw open, with until when (epoch ms): `tai42_breaker_open`. */
  private readonly openUntil = new Map<string, number>();

  constructor(
    readonly backend: LimitBackend,
    /** Tells every instance that a breaker opened (the runtime's bus); each calls {@link heardOpened}. */
    announce?: (name: string) => void,
  ) {
    this.breakers = new Breakers(backend, announce);
    this.slots = new SlotQueue(backend);
  }

  /**
   * The first breaker open, then the first rate exhausted, along `applied` (nearest name first); null when the
   * dispatch may go on. A rate's token is taken here. `trials` receives the names whose half-open trial this is.
   */
  async check(applied: AppliedLimits, caller: Caller, trials: Set<string>): Promise<Refusal | null> {
    for (const { name, limits } of applied) {
      if (!limits.breaker) continue;
      const v = await this.breakers.verdict(name);
      if (v.open) {
        this.openUntil.set(name, Date.now() + v.retryAfterMs);
        return this.refuse(
          name,
          "UNAVAILABLE",
          "breaker",
          v.retryAfterMs,
          `"${name}" is failing: its circuit breaker is open`,
        );
      }
      if (v.trial) trials.add(name);
      else if (v.failures > 0) trials.add(failing(name));
    }
    for (const { name, limits } of applied) {
      if (!limits.rate) continue;
      const refusal = await this.takeToken(name, limits.rate, caller);
      if (refusal) return refusal;
    }
    return null;
  }

  /** The caller key's own rate over all its dispatches (`Caller.rate`); null when it has none or a token is left. */
  async keyRate(caller: Caller): Promise<Refusal | null> {
    if (!caller.rate || !caller.keyName) return null;
    return this.takeToken(`key:${caller.keyName}`, { ...caller.rate, per: "key" }, caller);
  }

  /**
   * A slot of every concurrency cap along `applied`, waiting up to each cap's `waitSeconds` (`Infinity`: a background
   * run, until `signal` aborts). The slots, or the refusal of the first cap still full at its deadline (the slots
   * taken so far released).
   */
  async acquire(
    applied: AppliedLimits,
    caller: Caller,
    input: unknown,
    opts: { background?: boolean; signal?: AbortSignal } = {},
  ): Promise<Slot[] | Refusal> {
    const taken: Slot[] = [];
    for (const { name, limits } of applied) {
      const c = limits.concurrency;
      if (!c) continue;
      const scope = c.scope === "tool" ? "" : c.scope === "key" ? keyOf(caller) : pointed(input, c.scope.slice(6));
      const key = `${name}\u0000${scope}`;
      const deadline = opts.background ? Infinity : Date.now() + c.waitSeconds * 1000;
      const slot = await this.slots.take(name, key, c.max, deadline, opts.signal);
      if (!slot) {
        await Promise.all(taken.map((s) => s.release()));
        const after = this.slots.retryAfterSeconds(key);
        return this.refuse(
          name,
          "RATE_LIMITED",
          "concurrency",
          after * 1000,
          `"${name}" runs at most ${c.max} at once${c.scope === "tool" ? "" : ` per ${c.scope}`}; none was free within ${c.waitSeconds} s`,
        );
      }
      taken.push(slot);
    }
    return taken;
  }

  /** Before attempt `n` (> 1, a retry): waits while a breaker along `applied` is open, up to `budgetMs`. */
  async breakerWait(applied: AppliedLimits, budgetMs: number, signal: AbortSignal): Promise<Refusal | null> {
    for (const { name, limits } of applied) {
      if (!limits.breaker) continue;
      const ms = await this.breakers.openMs(name);
      if (ms === 0) continue;
      if (ms > budgetMs)
        return this.refuse(name, "UNAVAILABLE", "breaker", ms, `"${name}" is failing: its circuit breaker is open`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, ms);
        signal.addEventListener("abort", () => (clearTimeout(t), r()), { once: true });
      });
    }
    return null;
  }

  /** An attempt ended: `kind` null on success. A transient failure counts against every breaker along `applied`. */
  async attempted(
    applied: AppliedLimits,
    trials: Set<string>,
    kind: string | null,
    retryAfterSeconds?: number,
  ): Promise<void> {
    for (const { name, limits } of applied) {
      const b = limits.breaker;
      if (!b) continue;
      if (kind === null) await this.breakers.succeeded(name, trials.has(name), trials.has(failing(name)) ? 1 : 0);
      else if (TRANSIENT.has(kind) && (await this.breakers.failed(name, b, trials.has(name), retryAfterSeconds)))
        this.openUntil.set(name, Date.now() + (retryAfterSeconds ?? b.coolDownSeconds) * 1000);
      trials.delete(name);
      trials.delete(failing(name));
    }
  }

  /** The seconds the first open breaker along `applied` stays open (0: none is); null when none is declared. */
  async breakerOpenSeconds(applied: AppliedLimits): Promise<number | null> {
    const named = applied.filter((a) => a.limits.breaker);
    if (!named.length) return null;
    const ms = await Promise.all(named.map((a) => this.breakers.openMs(a.name)));
    return Math.ceil(Math.max(...ms) / 100) / 10;
  }

  /** Another instance opened `name`'s breaker. */
  heardOpened(name: string): void {
    this.breakers.heardOpened(name);
  }

  /** Refusals so far, by `tool` and reason (`tai42_limited_total`). */
  limited(): ReadonlyMap<string, number> {
    return this.refused;
  }

  /** The names whose breaker this instance last saw open and still counts open (`tai42_breaker_open`). */
  openBreakers(): string[] {
    const now = Date.now();
    for (const [name, until] of this.openUntil) if (until <= now) this.openUntil.delete(name);
    return [...this.openUntil.keys()];
  }

  /** Counts a refusal made outside this class (admission control). */
  count(tool: string, reason: LimitReason): void {
    const id = `${tool}\u0000${reason}`;
    this.refused.set(id, (this.refused.get(id) ?? 0) + 1);
  }

  private async takeToken(name: string, rate: RateLimit, caller: Caller): Promise<Refusal | null> {
    const shared = rate.per === "key:*";
    const counter = this.backend.counter(
      shared ? "rate-key" : `rate:${name}`,
      rate.burst,
      rate.intervalSeconds * (rate.burst / rate.tokens),
    );
    const key = rate.per === "tool" ? "" : keyOf(caller);
    try {
      await counter.consume(shared ? `${key}\u0000${rate.tokens}/${rate.intervalSeconds}` : key);
      return null;
    } catch (e) {
      if (!isRefusal(e)) throw e;
      const per = rate.per === "tool" ? "" : rate.per === "key" ? " per caller key" : " per caller key across tools";
      return this.refuse(
        name,
        "RATE_LIMITED",
        "rate",
        e.msBeforeNext,
        name.startsWith("key:")
          ? `the key "${caller.keyName}" makes at most ${rate.tokens} dispatches every ${rate.intervalSeconds} s`
          : `"${name}" takes at most ${rate.tokens} dispatches every ${rate.intervalSeconds} s${per}`,
      );
    }
  }

  private refuse(name: string, kind: Refusal["kind"], reason: LimitReason, ms: number, message: string): Refusal {
    this.count(name, reason);
    return { kind, reason, message, retryAfterSeconds: seconds(ms), declaredOn: name };
  }
}
