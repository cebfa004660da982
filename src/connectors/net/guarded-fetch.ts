/** What a connection's `fetch` may reach (docs/connectors.md §6). */
export interface NetworkRules {
  /** Exact host names or `*.domain` patterns; IP literals as written (IPv6 bracketed). */
  allowHosts: readonly string[];
  /** Loopback and private ranges allowed. */
  allowPrivateNetwork: boolean;
}

/**
 * `fetch` under `rules`: a request to a host not allowed, or whose resolved address is
 * refused, rejects with a `ToolError` of kind PERMISSION_DENIED naming the host and the rule.
 * PLACEHOLDER until the network-rules work lands: it allows nothing.
 */
export function guardedFetch(rules: NetworkRules): typeof fetch {
  void rules;
  return async () => {
    throw new Error("guardedFetch is not built yet");
  };
}
