import { z } from "zod";
import { NETWORK_SETTINGS, type NetworkSettings } from "../network-settings.ts";

/**
 * The settings of an `mcp` connector (docs/connectors.md §8): a stdio upstream
 * (`command`, `args`, `env`, `cwd`) or a Streamable HTTP one (`url`, `headers`), exactly one
 * of the two. `env/*` and `headers/*` are sealed: each value is an `!ENV` marker when
 * stored, resolved when the connection opens.
 */
export interface McpSettings extends NetworkSettings {
  /** The program a stdio upstream runs. */
  command?: string;
  args?: string[];
  /** The only variables the process gets beside the MCP SDK's non-secret defaults (PATH, HOME, …). */
  env?: Record<string, string>;
  cwd?: string;
  /** A Streamable HTTP upstream's endpoint. */
  url?: string;
  /** Sent with every HTTP request (an `Authorization` token). */
  headers?: Record<string, string>;
  /** Advertise elicitation (a tool's question parks its run). @default true */
  elicitation?: boolean;
  /** How long `initialize` and `tools/list` may take. @default 30 */
  requestTimeoutSeconds?: number;
  /** How long a parked elicitation waits for its answer (the interaction's expiry). @default 600 */
  elicitationTimeoutSeconds?: number;
}

const sealedMap = z.record(
  z.string().min(1, { error: "must be a non-empty name" }),
  z.string({ error: "must be a string (an `!ENV NAME` marker)" }),
);

const seconds = (max: number) =>
  z
    .number({ error: "must be a number of seconds" })
    .positive({ error: "must be > 0" })
    .max(max, { error: `must be <= ${max}` });

/** The zod schema of {@link McpSettings}; issues land at `/settings/<field>`. */
export const McpSettingsSchema: z.ZodType<McpSettings> = z
  .strictObject({
    command: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).optional(),
    args: z.array(z.string({ error: "must be a string" }), { error: "must be an array of strings" }).optional(),
    env: sealedMap.optional(),
    cwd: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).optional(),
    url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
    headers: sealedMap.optional(),
    elicitation: z.boolean({ error: "must be a boolean" }).optional(),
    requestTimeoutSeconds: seconds(600).optional(),
    elicitationTimeoutSeconds: seconds(86_400).optional(),
    ...NETWORK_SETTINGS,
  })
  .superRefine((s, ctx) => {
    if (s.command === undefined && s.url === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["command"],
        message: "give `command` (a stdio server) or `url` (a Streamable HTTP server)",
      });
      return;
    }
    if (s.command !== undefined && s.url !== undefined) {
      ctx.addIssue({ code: "custom", path: ["url"], message: "give `command` or `url`, not both" });
      return;
    }
    const wrong = s.url !== undefined ? (["args", "env", "cwd"] as const) : (["headers"] as const);
    for (const key of wrong)
      if (s[key] !== undefined)
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `applies to a ${s.url !== undefined ? "stdio (`command`)" : "Streamable HTTP (`url`)"} server only`,
        });
  });

/** The HTTP origins an `mcp` connector reaches: its `url`, or none for stdio. */
export function mcpOrigins(settings: McpSettings): string[] {
  return settings.url === undefined ? [] : [settings.url];
}
