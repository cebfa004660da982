import type { ConnectorKind } from "./connector-kind.ts";
import { guardedFetch } from "./net/guarded-fetch.ts";
import type { NetworkSettings } from "./network-settings.ts";

/**
 * The guarded `fetch` of one connection (docs/connectors.md §6): the hosts of the kind's
 * own origins for these settings, plus `allowHosts`; private addresses only with
 * `allowPrivateNetwork`.
 */
export function connectionFetch(kind: ConnectorKind, settings: Record<string, unknown>): typeof fetch {
  const network = settings as NetworkSettings;
  const hosts = new Set<string>();
  for (const origin of originsOf(kind, settings)) {
    try {
      hosts.add(new URL(origin).hostname);
    } catch {
      // Not a URL: the kind's settings schema refused it at the put already.
    }
  }
  for (const h of network.allowHosts ?? []) hosts.add(h);
  return guardedFetch({ allowHosts: [...hosts], allowPrivateNetwork: network.allowPrivateNetwork === true });
}

/** The kind's origins for these settings; none when it throws (its settings schema refused them at the put). */
function originsOf(kind: ConnectorKind, settings: Record<string, unknown>): string[] {
  try {
    return kind.origins(settings);
  } catch {
    return [];
  }
}
