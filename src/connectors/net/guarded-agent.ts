import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { Agent, buildConnector } from "undici";
import { refusedAddress } from "./address-rules.ts";

/**
 * The connect-time half of connector network rules (docs/connectors.md §6): an undici
 * `Agent` whose sockets resolve their host through a lookup that checks every address
 * before answering, so the address connected to is the one checked (a DNS answer cannot
 * change between the check and the connect). IP literals, which no lookup sees, are
 * checked by the connector itself.
 */

/** A connect refused by the address rules; the guarded fetch turns it into its PERMISSION_DENIED error. */
export class RefusedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly rule: string,
  ) {
    super(`${host} resolves to ${address}, ${rule}`);
    this.name = "RefusedAddressError";
  }
}

/** A `net.connect` lookup that resolves every address of `hostname` and refuses the connect if any is refused. */
function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(
      hostname,
      { family: options.family ?? 0, hints: options.hints, all: true },
      (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, "", 0);
        for (const { address } of addresses) {
          const rule = refusedAddress(address, allowPrivate);
          if (rule) return callback(new RefusedAddressError(hostname, address, rule), "", 0);
        }
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
        // `net` asks for every address when it races IPv4 and IPv6 (autoSelectFamily).
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      },
    );
  };
}

/**
 * The dispatcher every request of one guarded fetch goes through. Timeouts are the caller's signal's, so an idle SSE
 * stream is never cut.
 */
export function guardedAgent(allowPrivate: boolean): Agent {
  const connect = buildConnector({ lookup: checkedLookup(allowPrivate) });
  return new Agent({
    headersTimeout: 0,
    bodyTimeout: 0,
    connect(options, callback) {
      const host = options.hostname.replace(/^\[(.*)\]$/, "$1");
      // A literal address is connected to without a lookup: it is checked here.
      if (host.includes(":") || /^[0-9.]+$/.test(host)) {
        const rule = refusedAddress(host, allowPrivate);
        if (rule) return callback(new RefusedAddressError(host, host, rule), null);
      }
      connect(options, callback);
    },
  });
}
