import type { AppliedLimits } from "../limits/flow-control.ts";
import type { BreakerLimit, ConcurrencyLimit, RateLimit } from "../limits/limits.ts";
import { builder } from "./builder.ts";

const ConcurrencyLimitRef = builder.objectRef<ConcurrencyLimit>("ConcurrencyLimit").implement({
  description: "At most `max` bodies at once in the scope, on all instances together (docs/flow-control.md §2).",
  fields: (t) => ({
    max: t.exposeInt("max", { description: "Bodies at once." }),
    scope: t.exposeString("scope", {
      description: "Who shares the cap: tool (every caller), key (per caller key), input:<pointer> (per input value).",
    }),
    waitSeconds: t.exposeFloat("waitSeconds", {
      description: "How long a synchronous dispatch over the cap waits for a slot before it is refused RATE_LIMITED.",
    }),
  }),
});

export const RateLimitRef = builder.objectRef<RateLimit>("RateLimit").implement({
  description: "`tokens` dispatches every `intervalSeconds`, `burst` at most at once; past it RATE_LIMITED.",
  fields: (t) => ({
    tokens: t.exposeInt("tokens", { description: "Dispatches per interval." }),
    intervalSeconds: t.exposeFloat("intervalSeconds", { description: "The interval." }),
    burst: t.exposeInt("burst", { description: "Dispatches a full bucket admits at once." }),
    per: t.exposeString("per", {
      description: "tool (one bucket), key (one per caller key), key:* (one per caller key across tools).",
    }),
  }),
});

const BreakerLimitRef = builder.objectRef<BreakerLimit>("BreakerLimit").implement({
  description:
    "After `failures` consecutive UNAVAILABLE/TIMEOUT/RATE_LIMITED failures the tool is open for `coolDownSeconds` (a failure's retryAfterSeconds opens it that long at once), then half-open.",
  fields: (t) => ({
    failures: t.exposeInt("failures", { description: "Consecutive transient failures that open it." }),
    coolDownSeconds: t.exposeFloat("coolDownSeconds", { description: "How long it stays open." }),
  }),
});

/** One declaration along a tool's chain. */
export const AppliedLimitRef = builder.objectRef<AppliedLimits[number]>("AppliedLimit").implement({
  description: "The limits declared on one name of a tool's chain; a run counts against each (docs/flow-control.md).",
  fields: (t) => ({
    declaredOn: t.string({ description: "The name they are declared on.", resolve: (a) => a.name }),
    concurrency: t.field({
      type: ConcurrencyLimitRef,
      nullable: true,
      description: "null: no cap.",
      resolve: (a) => a.limits.concurrency ?? null,
    }),
    rate: t.field({
      type: RateLimitRef,
      nullable: true,
      description: "null: no rate.",
      resolve: (a) => a.limits.rate ?? null,
    }),
    breaker: t.field({
      type: BreakerLimitRef,
      nullable: true,
      description: "null: no breaker.",
      resolve: (a) => a.limits.breaker ?? null,
    }),
  }),
});
