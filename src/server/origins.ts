import type { IncomingMessage } from "node:http";

/** Loopback hosts: `localhost`, `127.0.0.0/8`, `[::1]`. */
const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i;

/**
 * Whether a WebSocket upgrade may proceed, judged by its `Origin` (docs/security-model.md
 * §5): no Origin (a non-browser client), the server's own origin (the request's Host),
 * a loopback origin on any port, or one listed in `TAI_CORS_ORIGINS`. Anything else is a
 * page on another site trying to ride the browser's connection (cross-site WebSocket
 * hijacking) and is refused.
 */
export function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: readonly string[],
): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file:) and garbage
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (host && url.host.toLowerCase() === host.toLowerCase()) return true;
  if (LOOPBACK_HOST.test(url.hostname)) return true;
  return listedOrigin(url.origin, allowed);
}

/**
 * Whether `origin` is one of `allowed` (TAI_CORS_ORIGINS), compared case-insensitively and without trailing slashes.
 */
export function listedOrigin(origin: string, allowed: readonly string[]): boolean {
  const o = origin.toLowerCase();
  return allowed.some((a) => a.replace(/\/+$/, "").toLowerCase() === o);
}

/**
 * ws's `verifyClient`: refuses a disallowed origin (or, on a loopback bind, a `Host` the
 * DNS rebinding guard refuses — see hosts.ts) with HTTP 403 before the upgrade, logging
 * one warn line.
 */
export function verifyOrigin(
  allowed: readonly string[],
  warn: (message: string, fields: Record<string, unknown>) => void,
  hostOk?: ((host: string | undefined) => boolean) | null,
) {
  return (
    info: { origin?: string; req: IncomingMessage },
    done: (ok: boolean, code?: number, message?: string) => void,
  ): void => {
    if (hostOk && !hostOk(info.req.headers.host)) {
      warn("refused a WebSocket upgrade for a host a loopback server does not answer for", {
        host: String(info.req.headers.host).slice(0, 200),
      });
      return done(false, 403, "Forbidden: this server is bound to loopback and does not answer for that host");
    }
    // ws passes `Origin` (or the legacy `Sec-WebSocket-Origin`) as info.origin; absent means undefined.
    const origin = info.req.headers.origin ?? (info.req.headers["sec-websocket-origin"] as string | undefined);
    if (originAllowed(origin, info.req.headers.host, allowed)) return done(true);
    warn("refused a WebSocket upgrade from a disallowed origin", { origin: String(origin).slice(0, 200) });
    done(false, 403, "Forbidden: this origin may not open a WebSocket here (see TAI_CORS_ORIGINS)");
  };
}
