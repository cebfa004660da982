import { resolveLimits } from "../limits/limits.ts";
import type { RetryPolicy } from "../retry/policy.ts";
import { resolvePolicy, type RetryPolicyInit } from "../retry/policy.ts";
import type { Logger } from "../log.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import type { ConnectionManager } from "./connections.ts";
import type { UpstreamTool } from "./connector-kind.ts";
import type { ConnectorStore, StoredConnector } from "./connector-store.ts";
import { appliedTier, surfaceName } from "./connector-tools.ts";

const DEFAULT_TIMEOUT_SECONDS = 30;

/**
 * The connectors' part of the stored surface (docs/connectors.md §2): read by every load
 * of `StoredSurface` with the presets and the manifest (one load path, one version), and
 * built into entries from the **stored listing**, never a live connection. Each entry's
 * `invoke` goes through this instance's {@link ConnectionManager}.
 */
export class ConnectorSurface {
  private rows: StoredConnector[] = [];

  constructor(
    private readonly store: ConnectorStore,
    private readonly connections: ConnectionManager,
    private readonly log: Logger,
  ) {}

  /** Reads the stored connectors (part of a load). */
  async read(): Promise<void> {
    this.rows = await this.store.all();
  }

  /** After a load applied: connections of deleted or changed connectors close. */
  applied(): void {
    this.connections.sync(this.rows);
  }

  /** The stored connectors as last read. */
  stored(): readonly StoredConnector[] {
    return this.rows;
  }

  /** The retry policies the ADMIN declared, on each tool's surface name. */
  policies(): Map<string, RetryPolicy> {
    const out = new Map<string, RetryPolicy>();
    for (const row of this.rows)
      for (const [tool, decision] of Object.entries(row.decisions)) {
        if (!decision.retry) continue;
        const name = surfaceName(row.name, tool);
        try {
          out.set(name, resolvePolicy(name, decision.retry as RetryPolicyInit));
        } catch (e) {
          this.log.error("a connector's stored retry declaration is invalid and was ignored", {
            connector: row.name,
            tool,
            error: (e as Error).message,
          });
        }
      }
    return out;
  }

  /** Every connector tool's entry (a "primary" surface source: presets and branches build on them). */
  entries(): SurfaceEntry[] {
    return this.rows.flatMap((row) => {
      const seen = new Set<string>();
      return row.listing.tools.flatMap((tool) => {
        const entry = this.entry(row, tool);
        if (seen.has(entry.name)) return [];
        seen.add(entry.name);
        return [entry];
      });
    });
  }

  private entry(row: StoredConnector, tool: UpstreamTool): SurfaceEntry {
    const decision = row.decisions[tool.name] ?? {};
    const name = surfaceName(row.name, tool.name);
    const timeoutSeconds = decision.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const target = { name: row.name, kind: row.kind, settings: row.settings, version: row.version };
    const upstreamCall = (ctx: Parameters<SurfaceEntry["invoke"]>[1]) => ({
      ctx,
      idempotencyKey: ctx.idempotencyKey ?? ctx.runId,
      idempotent: decision.retry?.idempotent === true,
      timeoutMs: timeoutSeconds * 1000,
    });
    return {
      name,
      label: tool.title,
      description: tool.description,
      origin: "CONNECTOR",
      connector: row.name,
      annotations: tool.annotations,
      tier: appliedTier(tool, decision, row.listing.pinned),
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      executionMode: "sequential",
      pauses: tool.pauses === true,
      extensionStack: [],
      timeoutSeconds,
      listed: decision.enabled ?? true,
      policyChain: [name],
      limits: decision.limits ? resolveLimits(name, decision.limits) : undefined,
      prepare: (input) => ({ ok: true, value: input }),
      invoke: (input, ctx) => this.connections.call(target, tool, input as Record<string, unknown>, upstreamCall(ctx)),
      resume: (state, answers, ctx) => this.connections.resume(target, tool, state, answers, upstreamCall(ctx)),
      module: `connector:${row.name}`,
    };
  }
}
