import { createHash } from "node:crypto";
import type { Caller } from "../auth/roles.ts";
import type { ErrorKind } from "../errors.ts";
import { Breakers } from "./breaker.ts";
import { isRefusal, type Counter, type LimitBackend, type Slot } from "./limit-backend.ts";
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

const FAILING = "|failing";
/** The mark, among a run's trials, that `name` has failures counted (seen at admission, or made by this run). */
export const failing = (name: string) => `${name}${FAILING}`;

/** A rate token a dispatch took: given back when another limit refuses it. */
interface Token {
  counter: Counter;
  key: string;
  /** When the window it was taken in ends (epoch ms): given back later, it would be a token of another window. */
  until: number;
}

/** What a dispatch took at admission: its rate tokens, and its half-open trials (and `failing` marks). */
export interface Taken {
  trials: Set<string>;
  tokens: Token[];
}

/** A concurrency cap with no slot free at once: what a synchronous dispatch then waits for (`details.waitingFor`). */
export interface FullCap {
  reason: "concurrency";
  /** The name whose cap it is. */
  declaredOn: string;
  /** How long the dispatch waits for it at most. */
  waitSeconds: number;
}

const keyOf = (caller: Caller) => caller.keyId ?? `anonymous:${caller.role}`;
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The value at a JSON pointer of `input`, as the part of a counter's key it makes (absent: its own value). */
function pointed(input: unknown, pointer: string): string {
  let at: unknown = input;
  for (const raw of pointer.split("/").slice(1)) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    at = at !== null && typeof at === "object" ? (at as Record<string, unknown>)[part] : undefined;
  }
  // Hashed: a caller's value is never a store key or a log field as it is, and keys stay bounded.
  return at === undefined ? "absent" : createHash("sha256").update(JSON.stringify(at)).digest("hex").slice(0, 32);
}

/** The counter key of `name`'s concurrency cap for this dispatch: its scope's value. */
function capKey(name: string, c: NonNullable<Limits["concurrency"]>, caller: Caller, input: unknown): string {
  const scope = c.scope === "tool" ? "" : c.scope === "key" ? keyOf(caller) : pointed(input, c.scope.slice(6));
  return `${name}|${scope}`;
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
  async check(applied: AppliedLimits, caller: Caller, taken: Taken): Promise<Refusal | null> {
    const refusal = await this.checkAll(applied, caller, taken);
    if (refusal) await this.giveBack(taken);
    return refusal;
  }

  /**
   * Gives back what a dispatch took and did not use (its tokens, its half-open trials): another limit refused it, or
   * it was not run (an idempotent follow, a failed start). Never throws.
   */
  async giveBack(taken: Taken): Promise<void> {
    // A token whose window has ended is not given back: the window it belonged to is over (a waiter's, say).
    const now = Date.now();
    const tokens = taken.tokens.splice(0).filter((t) => t.until > now);
    const trials = [...taken.trials].filter((t) => !t.endsWith(FAILING));
    for (const t of trials) taken.trials.delete(t);
    await Promise.all([
      ...tokens.map((t) => t.counter.reward(t.key, 1).catch(() => {})),
      ...trials.map((name) => this.breakers.giveBackTrial(name).catch(() => {})),
    ]);
  }

  /** Breakers first, then the key's own rate, then the rates along the chain: the first refusal. */
  private async checkAll(applied: AppliedLimits, caller: Caller, taken: Taken): Promise<Refusal | null> {
    const { trials, tokens } = taken;
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
    if (caller.rate && caller.keyName) {
      const refusal = await this.takeToken(`key:${caller.keyName}`, { ...caller.rate, per: "key" }, caller, tokens);
      if (refusal) return refusal;
    }
    for (const { name, limits } of applied) {
      if (!limits.rate) continue;
      const refusal = await this.takeToken(name, limits.rate, caller, tokens);
      if (refusal) return refusal;
    }
    return null;
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
      const key = capKey(name, c, caller, input);
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

  /**
   * A slot of every concurrency cap along `applied` if each is free now (none waited for, nothing counted); else the
   * first cap that is not, the slots taken so far released.
   */
  async tryAcquire(applied: AppliedLimits, caller: Caller, input: unknown): Promise<Slot[] | FullCap> {
    const taken: Slot[] = [];
    for (const { name, limits } of applied) {
      const c = limits.concurrency;
      if (!c) continue;
      const slot = await this.slots.tryTake(capKey(name, c, caller, input), c.max);
      if (!slot) {
        await Promise.all(taken.map((s) => s.release()));
        return { reason: "concurrency", declaredOn: name, waitSeconds: c.waitSeconds };
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
      const trial = trials.delete(name);
      if (kind === null) {
        await this.breakers.succeeded(name, trial, trials.delete(failing(name)) ? 1 : 0);
      } else if (TRANSIENT.has(kind)) {
        // Failures are counted now: this run's later success (a retry) must forget them.
        trials.add(failing(name));
        if (await this.breakers.failed(name, b, trial, retryAfterSeconds))
          this.openUntil.set(name, Date.now() + (retryAfterSeconds ?? b.coolDownSeconds) * 1000);
      }
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

  /** Counts a refusal of `tool` for `reason` (`tai42_limited_total`). */
  private count(tool: string, reason: LimitReason): void {
    const id = `${tool}\u0000${reason}`;
    this.refused.set(id, (this.refused.get(id) ?? 0) + 1);
  }

  private async takeToken(name: string, rate: RateLimit, caller: Caller, tokens?: Token[]): Promise<Refusal | null> {
    const shared = rate.per === "key:*";
    const counter = this.backend.rate(
      shared ? "rate-key" : `rate:${name}`,
      rate.burst,
      rate.intervalSeconds * (rate.burst / rate.tokens),
    );
    const key = rate.per === "tool" ? "" : keyOf(caller);
    try {
      const at = shared ? `${key}|${rate.tokens}/${rate.intervalSeconds}` : key;
      const res = await counter.consume(at);
      tokens?.push({ counter, key: at, until: Date.now() + res.msBeforeNext });
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
