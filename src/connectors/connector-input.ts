import { z } from "zod";
import { TIERS } from "../auth/roles.ts";
import { isDefinitionError } from "../definition-error.ts";
import { unstorableIssues } from "../db/storable.ts";
import { ApiError, describeIssues, type Issue } from "../errors.ts";
import { limitsIssues } from "../limits/limits.ts";
import { resolvePolicy, type RetryPolicy, type RetryPolicyInit } from "../retry/policy.ts";
import { checkMarkerWrite, markerIssues } from "../secrets/markers.ts";
import { zodIssues } from "../validation/declaration.ts";
import type { ConnectorKind } from "./connector-kind.ts";
import type { ConnectorInput, ToolDecision } from "./connector-record.ts";
import { sealedIssues } from "./sealed-paths.ts";

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const TIMEOUT = "must be an integer from 1 to 3600 (seconds)";

const DecisionSchema = z.strictObject(
  {
    tier: z.enum(TIERS, { error: `must be one of ${TIERS.join(", ")}` }).optional(),
    retry: z.unknown().optional(),
    timeoutSeconds: z
      .number({ error: TIMEOUT })
      .int({ error: TIMEOUT })
      .min(1, { error: TIMEOUT })
      .max(3600, { error: TIMEOUT })
      .optional(),
    enabled: z.boolean({ error: "must be a boolean" }).optional(),
    limits: z.unknown().optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "is not a tool decision field (tier, retry, timeoutSeconds, enabled, limits)"
        : "must be an object",
  },
);

/**
 * A checked put: the kind, the settings as written (markers in place), and the resolved retry policies by upstream
 * tool.
 */
export interface CheckedInput {
  input: ConnectorInput;
  kind: ConnectorKind;
  decisions: Record<string, ToolDecision>;
  policies: Map<string, RetryPolicy>;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * Every write rule of docs/connectors.md §2–§5 that needs no upstream: the name, the kind,
 * the settings against the kind's schema, sealed paths as `!ENV` markers, the marker write
 * rules, and each tool decision. Every problem is reported at once as one
 * `BAD_USER_INPUT` with issues at their paths; nothing is stored on a refusal.
 */
export function checkConnectorInput(
  input: ConnectorInput,
  kinds: ReadonlyMap<string, ConnectorKind>,
  envDeny: readonly string[],
): CheckedInput {
  const issues: Issue[] = [];
  if (!isObject(input))
    throw ApiError.badInput("a connector input must be an object", [{ path: "", message: "must be an object" }]);
  if (typeof input.name !== "string" || !NAME.test(input.name))
    issues.push({ path: "/name", message: "must match ^[A-Za-z0-9_-]{1,64}$" });
  if (input.description !== undefined && input.description !== null && typeof input.description !== "string")
    issues.push({ path: "/description", message: "must be a string" });
  const kind = typeof input.kind === "string" ? kinds.get(input.kind) : undefined;
  if (!kind)
    issues.push({
      path: "/kind",
      message: `must be a known connector kind (known: ${[...kinds.keys()].sort().join(", ") || "none"})`,
    });
  if (!isObject(input.settings)) issues.push({ path: "/settings", message: "must be an object" });
  else {
    issues.push(...unstorableIssues(input.settings, "/settings"), ...markerIssues(input.settings, "/settings"));
    try {
      checkMarkerWrite(input.settings, "/settings", { admin: true, deny: envDeny });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      issues.push(...e.issues);
    }
    if (kind) {
      const parsed = kind.settings.safeParse(input.settings);
      if (!parsed.success) issues.push(...zodIssues(parsed.error, "/settings"));
      issues.push(...sealedIssues(input.settings, kind.sealed));
    }
  }
  const policies = new Map<string, RetryPolicy>();
  const decisions: Record<string, ToolDecision> = {};
  if (input.tools !== undefined && input.tools !== null && !isObject(input.tools))
    issues.push({ path: "/tools", message: "must be an object of tool decisions by upstream tool name" });
  else
    for (const [tool, decision] of Object.entries(input.tools ?? {})) {
      const at = `/tools/${tool.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      const parsed = DecisionSchema.safeParse(decision);
      if (!parsed.success) issues.push(...zodIssues(parsed.error, at));
      issues.push(...unstorableIssues(decision, at));
      if (isObject(decision) && decision.retry !== undefined && decision.retry !== null) {
        try {
          policies.set(tool, resolvePolicy(`${input.name}_${tool}`, decision.retry as RetryPolicyInit));
        } catch (e) {
          if (!isDefinitionError(e, "retry.")) throw e;
          issues.push(...e.issues.map((i) => ({ path: `${at}/retry${i.path}`, message: i.message })));
        }
      }
      if (isObject(decision) && decision.limits !== undefined && decision.limits !== null)
        issues.push(...limitsIssues(`${input.name}_${tool}`, decision.limits, `${at}/limits`));
      if (parsed.success) decisions[tool] = parsed.data as ToolDecision;
    }
  if (issues.length)
    throw ApiError.badInput(`invalid connector "${String(input.name)}": ${describeIssues(issues)}`, issues);
  return { input: { ...input, description: input.description ?? "" }, kind: kind!, decisions, policies };
}
