import { z } from "zod";

/**
 * The network settings every connector kind's settings accept beside its own
 * (docs/connectors.md §6); the core builds the connection's guarded `fetch` from them and
 * the kind's `origins`.
 */
export interface NetworkSettings {
  /** Hosts reachable besides the hosts of the kind's own URLs: exact names or `*.example.com`. */
  allowHosts?: string[];
  /** Allow loopback and private addresses (a service on the same network). @default false */
  allowPrivateNetwork?: boolean;
}

const HOST = /^(\*\.)?[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/;

/** The zod shape of {@link NetworkSettings}: spread it into a kind's settings object. */
export const NETWORK_SETTINGS = {
  allowHosts: z
    .array(
      z.string().regex(HOST, { error: "must be a host name, `*.domain`, an IPv4 address or a bracketed IPv6 address" }),
    )
    .optional(),
  allowPrivateNetwork: z.boolean({ error: "must be a boolean" }).optional(),
};
