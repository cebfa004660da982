import type { Config } from "../config.ts";

/** The password inside a connection URL, if any. */
function passwordOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const p = new URL(url).password;
    return p ? decodeURIComponent(p) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The configured credentials (docs/security-model.md §3): `TAI_ADMIN_KEY`,
 * `TAI_DEMO_SIGNING_KEY`, `TAI_LLM_API_KEY`, `ANTHROPIC_API_KEY`, and the passwords of
 * `DATABASE_URL` and `REDIS_URL`.
 */
export function configuredCredentials(config: Config, env: NodeJS.ProcessEnv = process.env): string[] {
  const values = [config.adminKey, env.TAI_ADMIN_KEY, env.TAI_DEMO_SIGNING_KEY, env.TAI_LLM_API_KEY, env.ANTHROPIC_API_KEY, passwordOf(config.databaseUrl), passwordOf(config.redisUrl)];
  return values.filter((v): v is string => typeof v === "string" && v !== "");
}
