import type { Config } from "../config.ts";

/** The password inside a connection URL, if any: as written (percent-encoded, as drivers may echo it) and decoded. */
function passwordsOf(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const p = new URL(url).password;
    return p ? [p, decodeURIComponent(p)] : [];
  } catch {
    return [];
  }
}

/**
 * The configured credentials (docs/security-model.md §3): `TAI_ADMIN_KEY`,
 * `TAI_DEMO_SIGNING_KEY`, `TAI_LLM_API_KEY`, `ANTHROPIC_API_KEY`, and the passwords of
 * `DATABASE_URL` and `REDIS_URL`.
 */
export function configuredCredentials(config: Config, env: NodeJS.ProcessEnv = process.env): string[] {
  const values = [
    config.adminKey,
    env.TAI_ADMIN_KEY,
    env.TAI_DEMO_SIGNING_KEY,
    env.TAI_LLM_API_KEY,
    env.ANTHROPIC_API_KEY,
    ...passwordsOf(config.databaseUrl),
    ...passwordsOf(config.redisUrl),
  ];
  return [...new Set(values.filter((v): v is string => typeof v === "string" && v !== ""))];
}
