import { z } from "zod";
import { ROLES, type Role } from "./roles.ts";

/**
 * Access tokens from configured issuers (docs/security-model.md §1.2): the project config file's `identity`, or the
 * same object as JSON in `TAI_IDENTITY`. A client secret is only ever an `!ENV NAME` marker, read from the environment
 * when the configuration is loaded.
 */

const ENV_MARKER = /^!ENV ([A-Za-z_][A-Za-z0-9_]*)$/;
const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/;

/** An https URL, or http on a loopback host (a test's or a developer's own issuer). */
const issuerUrl = z
  .url()
  .refine((u) => {
    const url = new URL(u);
    return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOST.test(url.hostname));
  }, "must be an https URL (http only on a loopback host)")
  .refine((u) => !/[?#]/.test(u), "must have no query or fragment (OpenID Connect Discovery §2)");

const IssuerSchema = z.strictObject({
  /** The issuer identifier (`iss`); its metadata is read from `/.well-known/openid-configuration`. */
  issuer: issuerUrl,
  /** The claim whose value(s) name the caller's role: a dotted path (`realm_access.roles`). @default "groups" */
  roleClaim: z.string().min(1).max(200).default("groups"),
  /** Claim value → role; the highest role among the values wins, and a token none maps is refused. */
  roles: z
    .record(z.string().min(1), z.enum(ROLES))
    .refine((r) => Object.keys(r).length > 0, "must map at least one claim value to a role"),
  /** RFC 7662 introspection (opaque tokens, and re-checking open streams): a confidential client of the issuer. */
  introspection: z
    .strictObject({
      clientId: z.string().min(1),
      clientSecret: z
        .string()
        .regex(ENV_MARKER, 'must be an "!ENV NAME" marker (a secret is never written in a config)'),
    })
    .optional(),
  /** The dashboard's sign-in (authorization code + PKCE): the issuer's public client for it. */
  dashboard: z
    .strictObject({
      clientId: z.string().min(1),
      scope: z.string().min(1).default("openid profile offline_access"),
    })
    .optional(),
});

/** The schema of `identity` (project config) and of `TAI_IDENTITY` (its JSON). */
export const IdentitySchema = z.strictObject({
  /** This server as an OAuth resource (RFC 8707): every token's `aud`. @default TAI_PUBLIC_URL's origin */
  resource: z.url().optional(),
  /** Tolerance of `exp` and `nbf`. @default 30 */
  clockSkewSeconds: z.number().int().min(0).max(300).default(30),
  /** How often a token caller's open streams are checked again (expiry, introspection). @default 10 */
  pollSeconds: z.number().min(0.1).max(3600).default(10),
  /** The longest a fetched JWKS is trusted; a key id it lacks fetches it again sooner. @default 300 */
  jwksRefreshSeconds: z.number().min(1).max(86_400).default(300),
  issuers: z.array(IssuerSchema).min(1).max(16),
});

export type IdentityInit = z.input<typeof IdentitySchema>;

/** One configured issuer, its secret read. */
export interface IssuerConfig {
  issuer: string;
  roleClaim: string;
  roles: Record<string, Role>;
  /** Introspection's client; the secret is a function so that printing the configuration never shows it. */
  introspection?: { clientId: string; clientSecret: () => string };
  dashboard?: { clientId: string; scope: string };
}

/** The identity configuration as the server uses it. */
export interface IdentityConfig {
  resource: string;
  clockSkewSeconds: number;
  pollSeconds: number;
  jwksRefreshSeconds: number;
  issuers: IssuerConfig[];
}

/** One issue of a bad identity configuration: where (a JSON pointer under `identity`) and what. */
export interface IdentityIssue {
  path: string;
  message: string;
}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

/**
 * Parses `value` (the config's `identity`, or `TAI_IDENTITY`'s JSON) into the configuration, or the issues that make
 * it wrong. `publicUrl` gives the default resource; `env` holds the secrets `!ENV` markers name.
 */
export function parseIdentity(
  value: unknown,
  publicUrl: string | undefined,
  env: NodeJS.ProcessEnv,
): { identity: IdentityConfig } | { issues: IdentityIssue[] } {
  const parsed = IdentitySchema.safeParse(value);
  if (!parsed.success)
    return {
      issues: parsed.error.issues.map((i) => ({ path: `/${i.path.join("/")}`, message: i.message })),
    };
  const issues: IdentityIssue[] = [];
  const resource = parsed.data.resource ?? (publicUrl ? new URL(publicUrl).origin : undefined);
  if (!resource) issues.push({ path: "/resource", message: "is required when TAI_PUBLIC_URL is not set" });
  const seen = new Set<string>();
  const issuers = parsed.data.issuers.map((i, n): IssuerConfig => {
    const issuer = trimSlash(i.issuer);
    if (seen.has(issuer)) issues.push({ path: `/issuers/${n}/issuer`, message: `names ${issuer} a second time` });
    seen.add(issuer);
    const secretName = i.introspection && ENV_MARKER.exec(i.introspection.clientSecret)![1];
    if (secretName && !env[secretName])
      issues.push({ path: `/issuers/${n}/introspection/clientSecret`, message: `names ${secretName}, which is unset` });
    return {
      issuer: i.issuer,
      roleClaim: i.roleClaim,
      roles: i.roles,
      ...(i.introspection && {
        introspection: { clientId: i.introspection.clientId, clientSecret: () => env[secretName!] ?? "" },
      }),
      ...(i.dashboard && { dashboard: i.dashboard }),
    };
  });
  if (issues.length) return { issues };
  const { clockSkewSeconds, pollSeconds, jwksRefreshSeconds } = parsed.data;
  return { identity: { resource: trimSlash(resource!), clockSkewSeconds, pollSeconds, jwksRefreshSeconds, issuers } };
}
