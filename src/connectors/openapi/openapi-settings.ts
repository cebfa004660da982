import { z } from "zod";
import { NETWORK_SETTINGS, type NetworkSettings } from "../network-settings.ts";

/** The settings of an `openapi` connector (docs/connectors.md §9). */
export interface OpenApiSettings extends NetworkSettings {
  /** The OpenAPI 3.x document's text (JSON or YAML); exactly one of `document` and `documentUrl`. */
  document?: string;
  /** Where the document is read at every connect (the ADMIN's put or refresh), through the guarded fetch. */
  documentUrl?: string;
  /** Overrides the document's servers; a relative URL is resolved against `documentUrl`. */
  serverUrl?: string;
  /** Headers sent on every call (auth): each value an `!ENV` marker (sealed). */
  headers?: Record<string, string>;
  /** The per-call timeout when no tool decision sets one. */
  timeoutSeconds?: number;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const httpUrl = (what: string) =>
  z.string({ error: `must be ${what}` }).refine((v) => {
    try {
      return ["http:", "https:"].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, `must be ${what}`);

export const OPENAPI_SETTINGS: z.ZodType<OpenApiSettings> = z
  .strictObject(
    {
      document: z
        .string({ error: "must be the document's text" })
        .min(1, { error: "must be the document's text" })
        .optional(),
      documentUrl: httpUrl("an http(s) URL").optional(),
      serverUrl: z.string({ error: "must be a URL" }).min(1, { error: "must be a URL" }).optional(),
      headers: z
        .record(
          z.string().regex(HEADER_NAME, { error: "must be an HTTP header name" }),
          z.string({ error: "must be a string" }),
          {
            error: "must be an object of header names to values",
          },
        )
        .optional(),
      timeoutSeconds: z
        .number({ error: "must be a number > 0" })
        .gt(0, { error: "must be a number > 0" })
        .lte(3600, { error: "must be at most 3600" })
        .optional(),
      ...NETWORK_SETTINGS,
    },
    { error: "is not an openapi setting" },
  )
  .superRefine((s, ctx) => {
    if ((s.document === undefined) === (s.documentUrl === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["document"],
        message: "exactly one of document and documentUrl is required",
      });
    if (s.serverUrl !== undefined && !resolvesToHttp(s.serverUrl, s.documentUrl))
      ctx.addIssue({
        code: "custom",
        path: ["serverUrl"],
        message: s.documentUrl
          ? "must be an http(s) URL, or one relative to documentUrl"
          : "must be an absolute http(s) URL (no documentUrl to resolve it against)",
      });
  });

function resolvesToHttp(url: string, base: string | undefined): boolean {
  try {
    return ["http:", "https:"].includes(new URL(url, base).protocol);
  } catch {
    return false;
  }
}
