import { parseAddress } from "./address-rules.ts";

/**
 * A connector's host allow list (docs/connectors.md §6): exact host names (case-insensitive,
 * IDN names in their ASCII form), `*.domain` (any subdomain of `domain`, not `domain`
 * itself), and IP literals compared as addresses (`[::1]` matches `[0:0::1]`).
 */
export interface HostPatterns {
  /** Whether a URL's `hostname` is allowed. */
  allows(hostname: string): boolean;
}

/** A host as the WHATWG URL parser writes it (lower case, punycode, IPv4 in four parts), without a trailing dot. */
function canonical(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname.replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

/** An IP literal's normalized text, or undefined for a name. */
function addressKey(host: string): string | undefined {
  const address = parseAddress(host);
  return address && `${address.kind()}:${address.toNormalizedString()}`;
}

export function hostPatterns(patterns: readonly string[]): HostPatterns {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const pattern of patterns) {
    const wildcard = pattern.startsWith("*.");
    const host = canonical(wildcard ? pattern.slice(2) : pattern);
    if (!host) continue;
    if (wildcard) suffixes.push(`.${host}`);
    else exact.add(addressKey(host) ?? host);
  }
  return {
    allows(hostname) {
      const host = canonical(hostname);
      if (!host) return false;
      const key = addressKey(host);
      if (key) return exact.has(key);
      return exact.has(host) || suffixes.some((suffix) => host.endsWith(suffix) && host.length > suffix.length);
    },
  };
}
