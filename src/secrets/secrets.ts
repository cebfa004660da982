import { LRUCache } from "lru-cache";
import { ToolError } from "../errors.ts";
import { ConfigFileError } from "../plugins/config-provider.ts";
import { isServerConfigName, markerName, markersIn } from "./markers.ts";
import { configuredFormsOf, formsOf, MIN_SECRET_LENGTH } from "./forms.ts";
import { PatternIndex } from "./matcher.ts";
import { scrubTextWith, scrubValueOf, stringsIn } from "./scrub.ts";

/** What can scrub: the runtime's {@link Secrets} or one run's {@link SecretScope}. */
export interface Scrubber {
  /** `text` with every known secret replaced by "[redacted]". */
  scrubText(text: string): string;
  /** A copy of `value` with every known secret inside its strings replaced. */
  scrub<T>(value: T): T;
}

/** Redacted values the runtime remembers across runs by default (TAI_REDACT_CACHE_SIZE). */
export const DEFAULT_REDACT_CACHE_SIZE = 1024;

/** The shortest `ctx.redact` (or `writeOnly`) value the cross-run cache holds; a shorter one is its run's alone. */
export const CROSS_RUN_MIN_LENGTH = 8;

const isSecretValue = (value: unknown): value is string =>
  typeof value === "string" && value.length >= MIN_SECRET_LENGTH;

/** A set of secret values, each matched in all its forms (src/secrets/forms.ts) through one {@link PatternIndex}. */
class ValueSet implements Scrubber {
  /** The patterns of every value held here (refcounted: values may share forms). */
  protected readonly index = new PatternIndex();
  /** Each value held for good. */
  private readonly values = new Set<string>();

  constructor(protected readonly parent?: ValueSet) {}

  /** Remembers `value` (a string of at least 4 characters; anything else is ignored). */
  add(value: unknown): void {
    this.hold(value, formsOf);
  }

  /** Remembers every string of at least 4 characters inside `value`. */
  learn(value: unknown): void {
    for (const s of stringsIn(value)) this.add(s);
  }

  /** Whether `value` is held here for good. */
  protected holds(value: string): boolean {
    return this.values.has(value);
  }

  protected hold(value: unknown, forms: (value: string) => string[]): void {
    if (!isSecretValue(value) || this.values.has(value)) return;
    this.values.add(value);
    for (const p of forms(value)) this.index.add(p);
  }

  /** This set's index and its parents'. */
  private indexes(): PatternIndex[] {
    return this.parent ? [this.index, ...this.parent.indexes()] : [this.index];
  }

  scrubText(text: string): string {
    return scrubTextWith(text, this.indexes());
  }

  scrub<T>(value: T): T {
    const indexes = this.indexes();
    if (indexes.every((i) => !i.size)) return value;
    return scrubValueOf(value, (text) => scrubTextWith(text, indexes));
  }

  /**
   * The length of the longest pattern known (any form of any secret, here or in a parent):
   * the longest text a stream could cut across deltas. A streamer holds back one character
   * less than this at the end of what it has, whatever the text says: a hold-back that
   * depended on whether the text starts a secret would tell the caller, one guessed
   * character at a time, what the secret is.
   */
  longest(): number {
    return Math.max(...this.indexes().map((i) => i.longest()));
  }
}

/** One run's extra secrets (its `ctx.redact` values, values its secret-tier children saw), on top of the runtime's. */
export class SecretScope extends ValueSet {
  /**
   * A scope under this one: it scrubs whatever this one does (now and as it learns more) and what it learns itself,
   * which this one never sees (a run started by this scope's run: docs/security-model.md §2).
   */
  scope(): SecretScope {
    return new SecretScope(this);
  }
}

/**
 * Every value that must never be served or stored (docs/security-model.md §3), owned by
 * the runtime: configured credentials and resolved `!ENV` markers (held for good, also
 * matched by their halves), and the latest `ctx.redact` values (a bounded LRU of
 * TAI_REDACT_CACHE_SIZE values; each run also keeps its own in its {@link SecretScope}).
 * Every write to storage and every served value passes through {@link Secrets.scrub}.
 */
export class Secrets extends ValueSet {
  /** Names never resolvable besides `TAI_*`, `DATABASE_URL` and `REDIS_URL` (TAI_ENV_DENY). */
  readonly deny: readonly string[];
  private readonly lookup: (name: string) => string | undefined;
  /** Redacted values of recent runs, with their patterns; an evicted one leaves the index. */
  private readonly recent: LRUCache<string, string[]>;

  /**
   * `lookup` is where `!ENV` values come from (the config providers, docs/plugins.md §2);
   * without it, `env` (default: the process environment). `redactCacheSize` bounds the
   * redacted values remembered across runs (default {@link DEFAULT_REDACT_CACHE_SIZE}).
   */
  constructor(
    options: {
      deny?: readonly string[];
      env?: NodeJS.ProcessEnv;
      lookup?: (name: string) => string | undefined;
      redactCacheSize?: number;
    } = {},
  ) {
    super();
    this.deny = options.deny ?? [];
    const env = options.env ?? process.env;
    this.lookup = options.lookup ?? ((name) => env[name]);
    this.recent = new LRUCache({
      max: options.redactCacheSize ?? DEFAULT_REDACT_CACHE_SIZE,
      dispose: (patterns) => patterns.forEach((p) => this.index.remove(p)),
    });
  }

  /** Remembers a configured secret for good, in all its forms and by every half of it (from 8 characters). */
  override add(value: unknown): void {
    this.hold(value, configuredFormsOf);
  }

  /**
   * Remembers a value a run redacted (`ctx.redact`): in `scope` (the run's, for whatever
   * it stores) and among the runtime's recent ones, the least recently redacted of which
   * is forgotten past the cache size. Its halves are not matched: it may be any text.
   */
  remember(value: unknown, scope?: SecretScope): void {
    scope?.add(value);
    // A value shorter than CROSS_RUN_MIN_LENGTH scrubs its own run only: any caller may
    // redact a word ("object", "staging"), and the cache would rewrite it in every run's values.
    if (!isSecretValue(value) || value.length < CROSS_RUN_MIN_LENGTH || this.holds(value) || this.recent.get(value))
      return;
    const patterns = formsOf(value);
    for (const p of patterns) this.index.add(p);
    this.recent.set(value, patterns);
  }

  /** A per-run scope: scrubs the runtime's secrets and whatever the run learns. */
  scope(): SecretScope {
    return new SecretScope(this);
  }

  /**
   * Replaces every marker inside `value` with its variable's value and remembers it. A
   * variable naming server configuration, or one that is not set, fails with a message
   * naming the variable (never a value).
   */
  resolve(value: unknown, owner: string): unknown {
    const name = markerName(value);
    if (name !== null) {
      if (isServerConfigName(name, this.deny))
        throw new ToolError(
          `${owner}: "!ENV ${name}" names the server's own configuration, which is never resolvable`,
          { kind: "PERMISSION_DENIED", retryable: false },
        );
      let v: string | undefined;
      try {
        v = this.lookup(name);
      } catch (e) {
        // A provider's own message may quote what it read: only ours are known to be safe.
        throw new ToolError(
          `${owner}: ${e instanceof ConfigFileError ? e.message : `the config provider failed to look up ${name}`}`,
          { kind: "INTERNAL", retryable: false },
        );
      }
      if (v === undefined || v === "")
        throw new ToolError(`${owner}: the environment variable ${name} is not set`, {
          kind: "INTERNAL",
          retryable: false,
        });
      this.add(v);
      return v;
    }
    if (Array.isArray(value)) return value.map((v) => this.resolve(v, owner));
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v, owner)]));
    return value;
  }

  /**
   * Remembers the value of every marker inside `value` that may be resolved and is set (stored presets and manifests,
   * at load).
   */
  learnMarkers(value: unknown): void {
    for (const { name } of markersIn(value)) if (!isServerConfigName(name, this.deny)) this.add(this.known(name));
  }

  /**
   * A marker's value for learning: a provider that fails (a malformed file) teaches nothing here; the resolve reports
   * it.
   */
  private known(name: string): string | undefined {
    try {
      return this.lookup(name);
    } catch {
      return undefined;
    }
  }
}
