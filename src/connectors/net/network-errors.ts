import { ToolError } from "../../errors.ts";
import { RefusedAddressError } from "./guarded-agent.ts";

/**
 * The errors of a connector's guarded fetch (docs/connectors.md §6). Messages name the host
 * (and port) and the rule or the failure's code, never a URL's path or query, a header or a
 * body: any of those may carry a credential.
 */

/** A request the network rules refuse: PERMISSION_DENIED, never retried. */
export function refusal(host: string, rule: string): ToolError {
  return refused(`${host} is ${rule}`);
}

function refused(what: string): ToolError {
  return new ToolError(`connector network rules: ${what}`, { kind: "PERMISSION_DENIED", retryable: false });
}

/** What each failure code says; anything else is named by its code. */
const FAILURES: Record<string, string> = {
  ECONNREFUSED: "refused the connection",
  ECONNRESET: "reset the connection",
  ENOTFOUND: "does not resolve (DNS)",
  EAI_AGAIN: "could not be resolved (DNS)",
  EHOSTUNREACH: "is unreachable",
  ENETUNREACH: "is unreachable",
  ETIMEDOUT: "did not answer in time",
  EPIPE: "closed the connection",
  UND_ERR_SOCKET: "closed the connection",
  UND_ERR_CONNECT_TIMEOUT: "did not accept the connection in time",
  UND_ERR_CLOSED: "closed the connection",
};

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = error; at !== undefined && at !== null && chain.length < 8; at = (at as { cause?: unknown }).cause)
    chain.push(at);
  return chain;
}

/** `host` as shown in messages: with its port when the URL has one. */
export function shownHost(url: URL): string {
  return url.port ? `${url.hostname}:${url.port}` : url.hostname;
}

/**
 * What a failed send becomes: an address the connect-time check refused is a
 * {@link refusal}; a DNS failure, a refused, reset or timed-out connection or a TLS failure
 * is NETWORK; anything else (a request undici would not build) INTERNAL, named by class only.
 */
export function sendFailure(error: unknown, url: URL): ToolError {
  const chain = causes(error);
  const refusedAt = chain.find((e): e is RefusedAddressError => e instanceof RefusedAddressError);
  if (refusedAt) {
    const { host, address, rule } = refusedAt;
    return host === address ? refusal(host, rule) : refused(`${host} resolves to ${address}, ${rule}`);
  }
  const code = chain.map((e) => (e as { code?: unknown }).code).find((c): c is string => typeof c === "string");
  const failed = chain.some((e) => e instanceof TypeError && e.message === "fetch failed");
  if (code || failed) {
    const what = code
      ? (FAILURES[code] ?? (/CERT|TLS|SSL/.test(code) ? `failed TLS (${code})` : `failed (${code})`))
      : "failed";
    return new ToolError(`connector network: ${shownHost(url)} ${what}`, { kind: "NETWORK" });
  }
  const name = error instanceof Error ? error.name : typeof error;
  return new ToolError(`connector network: the request to ${shownHost(url)} could not be made (${name})`, {
    kind: "INTERNAL",
  });
}
