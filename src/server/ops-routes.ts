import type { Role } from "../auth/roles.ts";
import { isAdmin } from "../auth/tiers.ts";
import { ApiError } from "../errors.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { MetricsAccess } from "../ops/ops-config.ts";
import type { Runtime } from "../runtime.ts";
import { authenticate } from "./authenticate.ts";
import type { Readiness, ReadyAnswer } from "./ready.ts";

const LOOPBACK_PEER = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * Who may read `/metrics` under TAI_METRICS (docs/deploy.md §"Metrics"): `off` nobody (404),
 * `loopback` a peer on this host or an ADMIN key, `admin` an ADMIN key only, `public`
 * anyone. Behind a reverse proxy on the same host every request comes from loopback:
 * use `admin` there.
 */
export function mayReadMetrics(access: MetricsAccess, peer: string | undefined, role: Role | null): boolean {
  if (access === "public") return true;
  if (access === "off") return false;
  if (role !== null && isAdmin(role)) return true;
  return access === "loopback" && peer !== undefined && LOOPBACK_PEER.test(peer);
}

/**
 * The operations routes beside GraphQL: `/health` (liveness: 200 while the process
 * serves), `/ready` (readiness: 200 or 503, see {@link Readiness}) and `/metrics`
 * (Prometheus text). Returns false for any other request.
 */
export function opsRoutes(rt: Runtime, readiness: Readiness): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/health" && path !== "/ready" && path !== "/metrics") return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(
        res,
        405,
        { errors: [{ message: `${path} answers GET and HEAD only`, extensions: { code: "METHOD_NOT_ALLOWED" } }] },
        { allow: "GET, HEAD" },
      );
      return true;
    }
    if (path === "/health") send(res, 200, { status: "ok" });
    else if (path === "/ready") void readiness.check().then((a) => send(res, readyStatus(a, req.url ?? ""), a));
    else
      metrics(rt, req, res).catch((e: Error) => {
        rt.log.error("serving /metrics failed", { error: e.message });
        if (!res.headersSent)
          send(res, 500, {
            errors: [{ message: "the metrics could not be read", extensions: { code: "INTERNAL_SERVER_ERROR" } }],
          });
        else res.destroy();
      });
    return true;
  };
}

async function metrics(rt: Runtime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const access = rt.config.metrics;
  if (access === "off")
    return send(res, 404, {
      errors: [{ message: "metrics are off (TAI_METRICS=off)", extensions: { code: "NOT_FOUND" } }],
    });
  let role: Role | null = null;
  if (access !== "public" && req.headers.authorization) {
    try {
      role = (await authenticate(rt, req.headers.authorization))?.role ?? null;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return send(
        res,
        401,
        {
          errors: [
            { message: "the API key is malformed, unknown or revoked", extensions: { code: "UNAUTHENTICATED" } },
          ],
        },
        { "www-authenticate": "Bearer" },
      );
    }
  }
  if (!mayReadMetrics(access, req.socket.remoteAddress, role)) {
    const message =
      access === "admin"
        ? "metrics need an ADMIN key (TAI_METRICS=admin)"
        : "metrics are served to loopback peers and ADMIN keys (TAI_METRICS=loopback)";
    return send(
      res,
      role ? 403 : 401,
      { errors: [{ message, extensions: { code: role ? "FORBIDDEN" : "UNAUTHENTICATED" } }] },
      role ? {} : { "www-authenticate": "Bearer" },
    );
  }
  const body = await rt.metrics.text();
  res.writeHead(200, {
    "content-type": rt.metrics.contentType,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(res.req?.method === "HEAD" ? undefined : text);
}

/**
 * The HTTP status of a readiness answer: 200 ready or degraded, 503 otherwise; while draining, 404 instead when the
 * check asks with `?draining=404` (haproxy's `http-check disable-on-404`: no new requests, and those in flight are
 * kept, where a failed check would end them; docs/deploy.md §3).
 */
export function readyStatus(a: ReadyAnswer, url: string): number {
  if (a.status === "ready" || a.status === "degraded") return 200;
  if (a.status === "draining" && new URLSearchParams(url.split("?")[1] ?? "").get("draining") === "404") return 404;
  return 503;
}
