import { ToolError } from "../errors.ts";
import { ConfigFileError } from "../plugins/config-provider.ts";
import { isServerConfigName, markerName, markersIn } from "./markers.ts";
import { formsOf, MIN_SECRET_LENGTH, scrubTextOf, scrubValueOf, stringsIn } from "./scrub.ts";

/** What can scrub: the runtime's {@link Secrets} or one run's {@link SecretScope}. */
export interface Scrubber {
  /** `text` with every known secret replaced by "[redacted]". */
  scrubText(text: string): string;
  /** A copy of `value` with every known secret inside its strings replaced. */
  scrub<T>(value: T): T;
}

/** A set of secret values, scrubbed longest first. */
class ValueSet implements Scrubber {
  private readonly values = new Set<string>();
  private sorted: string[] | null = [];

  constructor(protected readonly parent?: ValueSet) {}

  /** Remembers `value` (a string of at least 4 characters; anything else is ignored). */
  add(value: unknown): void {
    if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH || this.values.has(value)) return;
    this.values.add(value);
    this.sorted = null;
  }

  /** Remembers every string of at least 4 characters inside `value`. */
  learn(value: unknown): void {
    for (const s of stringsIn(value)) this.add(s);
  }

  /** Every value known here (and to the parent), in their raw and JSON-escaped forms, longest first. */
  forms(): readonly string[] {
    const own = (this.sorted ??= [...this.values].flatMap(formsOf).sort((a, b) => b.length - a.length));
    if (!this.parent) return own;
    const all = [...own, ...this.parent.forms()];
    return own.length ? all.sort((a, b) => b.length - a.length) : all;
  }

  scrubText(text: string): string {
    const forms = this.forms();
    return forms.length ? scrubTextOf(text, forms) : text;
  }

  scrub<T>(value: T): T {
    return scrubValueOf(value, this.forms());
  }

  /**
   * The length of the longest known secret (in any of its forms). A streamer holds back
   * one character less than this at the end of what it has, whatever the text says: a
   * hold-back that depended on whether the text starts a secret would tell the caller,
   * one guessed character at a time, what the secret is.
   */
  longest(): number {
    return this.forms()[0]?.length ?? 0;
  }
}

/** One run's extra secrets (values its secret-tier children saw), on top of the runtime's. */
export class SecretScope extends ValueSet {}

/**
 * Every value that must never be served or stored (docs/security-model.md §3), owned by
 * the runtime: configured credentials, resolved `!ENV` markers and `ctx.redact` values.
 * Every write to storage and every served value passes through {@link Secrets.scrub}.
 */
export class Secrets extends ValueSet {
  /** Names never resolvable besides `TAI_*`, `DATABASE_URL` and `REDIS_URL` (TAI_ENV_DENY). */
  readonly deny: readonly string[];
  private readonly lookup: (name: string) => string | undefined;

  /**
   * `lookup` is where `!ENV` values come from (the config providers, docs/plugins.md §2);
   * without it, `env` (default: the process environment).
   */
  constructor(options: { deny?: readonly string[]; env?: NodeJS.ProcessEnv; lookup?: (name: string) => string | undefined } = {}) {
    super();
    this.deny = options.deny ?? [];
    const env = options.env ?? process.env;
    this.lookup = options.lookup ?? ((name) => env[name]);
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
        throw new ToolError(`${owner}: "!ENV ${name}" names the server's own configuration, which is never resolvable`, { kind: "PERMISSION_DENIED", retryable: false });
      let v: string | undefined;
      try {
        v = this.lookup(name);
      } catch (e) {
        // A provider's own message may quote what it read: only ours are known to be safe.
        throw new ToolError(`${owner}: ${e instanceof ConfigFileError ? e.message : `the config provider failed to look up ${name}`}`, { kind: "INTERNAL", retryable: false });
      }
      if (v === undefined || v === "") throw new ToolError(`${owner}: the environment variable ${name} is not set`, { kind: "INTERNAL", retryable: false });
      this.add(v);
      return v;
    }
    if (Array.isArray(value)) return value.map((v) => this.resolve(v, owner));
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v, owner)]));
    return value;
  }

  /** Remembers the value of every marker inside `value` that may be resolved and is set (stored presets and manifests, at load). */
  learnMarkers(value: unknown): void {
    for (const { name } of markersIn(value)) if (!isServerConfigName(name, this.deny)) this.add(this.known(name));
  }

  /** A marker's value for learning: a provider that fails (a malformed file) teaches nothing here; the resolve reports it. */
  private known(name: string): string | undefined {
    try {
      return this.lookup(name);
    } catch {
      return undefined;
    }
  }
}
