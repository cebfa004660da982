import { fetch as undiciFetch, type RequestInit as UndiciRequestInit } from "undici";
import { ToolError } from "../../errors.ts";
import { parseAddress, refusedAddress } from "./address-rules.ts";
import { guardedAgent } from "./guarded-agent.ts";
import { hostPatterns, type HostPatterns } from "./host-patterns.ts";
import { refusal, sendFailure, shownHost } from "./network-errors.ts";
import { MAX_REDIRECTS, isRedirect, nextHop, type Hop } from "./redirects.ts";

/** What a connection's `fetch` may reach (docs/connectors.md §6). */
export interface NetworkRules {
  /** Exact host names or `*.domain` patterns; IP literals as written (IPv6 bracketed). */
  allowHosts: readonly string[];
  /** Loopback and private ranges allowed. */
  allowPrivateNetwork: boolean;
}

const NORMALIZED_METHODS = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);

/** One call's request as the caller wrote it (a URL and init, or a `Request`). */
interface Described {
  hop: Hop;
  signal: AbortSignal | undefined;
  redirect: RequestRedirect;
  rest: Omit<RequestInit, "method" | "headers" | "body" | "signal" | "redirect">;
}

function headerList(init: HeadersInit | undefined): [string, string][] {
  if (!init) return [];
  if (Array.isArray(init)) return init.map(([name, value]) => [name.toLowerCase(), value]);
  if (typeof (init as Headers).forEach === "function") {
    const pairs: [string, string][] = [];
    (init as Headers).forEach((value, name) => pairs.push([name.toLowerCase(), value]));
    return pairs;
  }
  return Object.entries(init as Record<string, string>).map(([name, value]) => [name.toLowerCase(), String(value)]);
}

function describe(input: string | URL | Request, init: RequestInit | undefined): Described {
  const request = typeof input === "object" && !(input instanceof URL) ? input : undefined;
  let url: URL;
  try {
    url = new URL(request ? request.url : String(input));
  } catch {
    throw new ToolError("connector network: the request URL is invalid", { kind: "INTERNAL" });
  }
  const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
  const { method: _m, headers, body, signal, redirect, ...rest } = init ?? {};
  return {
    hop: {
      url,
      method: NORMALIZED_METHODS.has(method) ? method : (init?.method ?? request?.method ?? method),
      headers: headerList(headers ?? request?.headers),
      body: init && "body" in init ? body : request?.body,
    },
    signal: signal ?? request?.signal,
    redirect: redirect ?? request?.redirect ?? "follow",
    rest,
  };
}

/** The checks made before anything is sent: the protocol, the allow list, and a literal address's rules. */
function check(url: URL, hosts: HostPatterns, allowPrivate: boolean): void {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw refusal(url.protocol, "not an allowed protocol (http and https only)");
  if (!hosts.allows(url.hostname))
    throw refusal(url.hostname, "not an allowed host of this connector (its URLs' hosts and allowHosts)");
  if (parseAddress(url.hostname)) {
    const rule = refusedAddress(url.hostname, allowPrivate);
    if (rule) throw refusal(url.hostname, rule);
  }
}

function streamed(body: unknown): boolean {
  return body instanceof ReadableStream || (typeof body === "object" && body !== null && Symbol.asyncIterator in body);
}

/**
 * `fetch` under `rules` (docs/connectors.md §6), built on undici's own `fetch` and an
 * `Agent` that checks every resolved address at connect time. A request to a host not
 * allowed, to a refused literal address, or whose resolved address is refused rejects with
 * a `ToolError` of kind PERMISSION_DENIED (not retryable) naming the host and the rule;
 * DNS and connection failures are NETWORK; an aborted request rejects with its signal's
 * reason. Redirects are followed by hand (at most 5), each target checked the same way;
 * `redirect: "manual"` returns the redirect as it is. Usable as the MCP SDK's `fetch`
 * option (responses stream: `body` is a web `ReadableStream`).
 */
export function guardedFetch(rules: NetworkRules): typeof fetch {
  const hosts = hostPatterns(rules.allowHosts);
  const dispatcher = guardedAgent(rules.allowPrivateNetwork);

  async function send(hop: Hop, call: Described): Promise<Response> {
    const init = {
      ...call.rest,
      method: hop.method,
      headers: hop.headers,
      body: hop.body,
      signal: call.signal,
      redirect: "manual",
      dispatcher,
      ...(streamed(hop.body) ? { duplex: "half" } : {}),
    } as UndiciRequestInit;
    try {
      return (await undiciFetch(hop.url, init)) as unknown as Response;
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      throw sendFailure(error, hop.url);
    }
  }

  async function guarded(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const call = describe(input, init);
    call.signal?.throwIfAborted();
    let hop = call.hop;
    for (let followed = 0; ; followed++) {
      check(hop.url, hosts, rules.allowPrivateNetwork);
      const response = await send(hop, call);
      const location = response.headers.get("location");
      if (!isRedirect(response.status) || call.redirect === "manual" || location === null) return response;
      await response.body?.cancel().catch(() => undefined);
      if (call.redirect === "error")
        throw new ToolError(`connector network: ${shownHost(hop.url)} redirected a request that refuses redirects`, {
          kind: "NETWORK",
          retryable: false,
        });
      if (followed === MAX_REDIRECTS)
        throw refusal(shownHost(hop.url), `redirecting past the limit of ${MAX_REDIRECTS} redirects`);
      let target: URL;
      try {
        target = new URL(location, hop.url);
      } catch {
        throw new ToolError(`connector network: ${shownHost(hop.url)} redirected to an invalid location`, {
          kind: "NETWORK",
          retryable: false,
        });
      }
      hop = nextHop(hop, response.status, target);
    }
  }
  return guarded as typeof fetch;
}
