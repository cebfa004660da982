/**
 * The URL of the first server of an OpenAPI `servers` list: `{variables}` take their
 * defaults (else their first enum value), and a relative URL is resolved against the
 * document's URL when there is one (else kept relative, and refused at call time).
 */
export function firstServer(servers: unknown, documentUrl: string | undefined): string | undefined {
  if (!Array.isArray(servers) || servers.length === 0) return undefined;
  const server = servers[0] as { url?: unknown; variables?: Record<string, { default?: unknown; enum?: unknown[] }> };
  if (typeof server?.url !== "string") return undefined;
  const url = server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = server.variables?.[name];
    const value = variable?.default ?? variable?.enum?.[0];
    return value === undefined ? whole : String(value);
  });
  return resolveAgainst(url, documentUrl);
}

/** A URL resolved against the document URL when it is relative and there is one. */
export function resolveAgainst(url: string, documentUrl: string | undefined): string {
  if (isAbsoluteHttp(url) || documentUrl === undefined) return url;
  try {
    return new URL(url, documentUrl).href;
  } catch {
    return url;
  }
}

export function isAbsoluteHttp(url: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}
