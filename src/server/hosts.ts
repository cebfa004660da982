import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "../config.ts";
import { isLoopback } from "../config.ts";

/** Loopback host names: `localhost` (and `*.localhost`), `127.0.0.0/8`, `[::1]`. */
const LOOPBACK_NAME = /^((.+\.)?localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i;

function hostnameOf(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return new URL(`http://${value}`).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return null;
  }
}

/**
 * DNS rebinding guard (docs/security-model.md §5). A server bound to loopback answers
 * only requests addressed to a loopback name, or to a host named in `TAI_PUBLIC_URL` or
 * `TAI_CORS_ORIGINS`: a page on another site whose name was re-pointed at 127.0.0.1 is
 * "same-origin" for the browser, but its requests still carry that site's name in
 * `Host`, and are refused. A server bound to another address has no anonymous access
 * by default, and is reached under names this process cannot know: no check there.
 * Returns null when every host may pass.
 */
export function hostGuard(
  config: Pick<Config, "host" | "publicUrl" | "corsOrigins">,
): ((host: string | undefined) => boolean) | null {
  if (!isLoopback(config.host)) return null;
  const named = new Set(
    [config.publicUrl, ...config.corsOrigins].flatMap((u) => {
      try {
        return u ? [new URL(u).hostname.toLowerCase()] : [];
      } catch {
        return [];
      }
    }),
  );
  return (host) => {
    const name = hostnameOf(host);
    return name !== null && (LOOPBACK_NAME.test(name) || named.has(name));
  };
}

/** Answers a request for a refused `Host` with 403 and a JSON error naming the rule. */
export function refuseHost(res: ServerResponse, req: IncomingMessage): void {
  const body = JSON.stringify({
    errors: [
      {
        message: `Forbidden: this server is bound to loopback and does not answer for host "${String(req.headers.host ?? "").slice(0, 100)}" (add it to TAI_PUBLIC_URL or TAI_CORS_ORIGINS)`,
        extensions: { code: "FORBIDDEN" },
      },
    ],
  });
  res.writeHead(403, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  });
  res.end(body);
  req.resume();
}
