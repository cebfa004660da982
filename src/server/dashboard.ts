import { readFile, readdir, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/**
 * Where the built dashboard lives (`scripts/build-dashboard.mjs`): dist/dashboard/ at the
 * package root, two folders up from this file both as src/server/*.ts and as
 * dist/server/*.js.
 */
export const DASHBOARD_DIR = fileURLToPath(new URL("../../dist/dashboard/", import.meta.url));

/**
 * The page's Content-Security-Policy: everything from the server itself, nothing inline,
 * no eval, nothing from elsewhere, no framing. The forms validate against schemas the
 * server sends at run time with an interpreting validator (src/dashboard/forms/), not one
 * that compiles each schema with `new Function`, so scripts need no `'unsafe-eval'`.
 */
export const DASHBOARD_CSP = dashboardCsp([]);

/**
 * The page's policy when it signs in through issuers: `connect-src` also reaches each issuer's origin (its discovery
 * document and token endpoint), and nothing else. Going to the authorization and end-session endpoints is a
 * navigation, which no directive restricts.
 */
export function dashboardCsp(issuerOrigins: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    ["connect-src 'self'", ...new Set(issuerOrigins)].join(" "),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** What the dashboard needs of the identity configuration (`rt.config.identity`, docs/deploy.md). */
export interface DashboardIdentity {
  /** This server as an OAuth resource: the `resource` the dashboard asks its tokens for. */
  resource: string;
  issuers: readonly { issuer: string; dashboard?: { clientId: string; scope?: string | undefined } | undefined }[];
}

/** `GET /dashboard/identity.json`: the issuers the dashboard signs in through (those with a `dashboard` block). */
export interface DashboardIdentityJson {
  resource?: string;
  issuers: { issuer: string; clientId: string; scope: string }[];
}

/** The scope the dashboard asks for when its block names none. */
const DEFAULT_SCOPE = "openid profile offline_access";

/** The body of identity.json for `identity` (null: no issuers). Nothing secret is in it. */
export function identityJson(identity: DashboardIdentity | null | undefined): DashboardIdentityJson {
  const issuers = (identity?.issuers ?? []).flatMap((i) =>
    i.dashboard
      ? [{ issuer: i.issuer, clientId: i.dashboard.clientId, scope: i.dashboard.scope ?? DEFAULT_SCOPE }]
      : [],
  );
  return issuers.length ? { resource: identity!.resource, issuers } : { issuers: [] };
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json; charset=utf-8",
};

/** An asset name the server may serve: one path segment, no dot first (so no `..`), no escapes. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

/** esbuild's content hash in a file name (`app-4KX2QJ7D.js`): such a file never changes. */
const HASHED = /-[A-Z0-9]{8}\.[a-z0-9]+$/;

interface File {
  type: string;
  body: Buffer;
  gzipped: Buffer | null;
  immutable: boolean;
}

/**
 * The built files, read once and kept: the listing of assets/ bounds what can be served
 * (a name not in it is a 404 before any path is built from it). A rebuild under a
 * running server is picked up with the next page load (index.html's mtime moved).
 */
class DashboardFiles {
  private builtAt = -1;
  private names = new Set<string>();
  private cache = new Map<string, Promise<File>>();

  constructor(private readonly dir: string) {}

  /** Whether the bundle is there; reloads the listing when index.html changed. */
  async refresh(): Promise<boolean> {
    const mtime = await stat(join(this.dir, "index.html")).then(
      (s) => s.mtimeMs,
      () => null,
    );
    if (mtime === null) return false;
    if (mtime !== this.builtAt) {
      this.names = new Set(await readdir(join(this.dir, "assets")).catch(() => []));
      this.cache.clear();
      this.builtAt = mtime;
    }
    return true;
  }

  page(): Promise<File> {
    return this.load("index.html", join(this.dir, "index.html"));
  }

  asset(name: string): Promise<File> | null {
    if (!ASSET_NAME.test(name) || !this.names.has(name) || !TYPES[extname(name)]) return null;
    return this.load(name, join(this.dir, "assets", name));
  }

  private load(key: string, path: string): Promise<File> {
    let file = this.cache.get(key);
    if (!file) {
      file = readFile(path).then((body) => {
        const type = TYPES[extname(path)];
        const compressible = !type.startsWith("image/png") && !type.startsWith("font/");
        return {
          type,
          body,
          gzipped: compressible && body.length > 1024 ? gzipSync(body) : null,
          immutable: HASHED.test(key),
        };
      });
      file.catch(() => this.cache.delete(key));
      this.cache.set(key, file);
    }
    return file;
  }
}

/**
 * Serves the dashboard: `GET /` redirects to `/dashboard`, `/dashboard` is the page (with its CSP),
 * `/dashboard/assets/<name>` the built files, `/dashboard/identity.json` the issuers it signs in through. Returns
 * false for any other path (the caller passes it on). Only files of dist/dashboard/ are ever read.
 */
export function dashboardRoutes(
  dir: string = DASHBOARD_DIR,
  identity: DashboardIdentity | null = null,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const files = new DashboardFiles(dir);
  const signIn = identityJson(identity);
  const csp = dashboardCsp(signIn.issuers.map((i) => new URL(i.issuer).origin));
  return (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/" && path !== "/dashboard" && !path.startsWith("/dashboard/")) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(req, res, 405, { allow: "GET, HEAD", "content-type": TYPES[".html"] }, "Method Not Allowed");
      return true;
    }
    if (path === "/") {
      send(
        req,
        res,
        302,
        { location: "/dashboard", "content-type": TYPES[".html"] },
        '<a href="/dashboard">tai42 dashboard</a>',
      );
      return true;
    }
    if (path === "/dashboard/identity.json") {
      send(req, res, 200, { "content-type": TYPES[".json"], "cache-control": "no-cache" }, JSON.stringify(signIn));
      return true;
    }
    void respond(files, csp, path, req, res).catch(() => {
      if (!res.headersSent)
        send(req, res, 500, { "content-type": "text/plain; charset=utf-8" }, "the dashboard could not be read");
      else res.destroy();
    });
    return true;
  };
}

async function respond(
  files: DashboardFiles,
  csp: string,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (!(await files.refresh())) {
    return send(
      req,
      res,
      503,
      { "content-type": "text/plain; charset=utf-8" },
      "the dashboard has not been built: run `npm run build`",
    );
  }
  if (path === "/dashboard" || path === "/dashboard/") {
    const page = await files.page();
    return sendFile(req, res, page, {
      "content-security-policy": csp,
      "x-frame-options": "DENY",
      "cross-origin-opener-policy": "same-origin",
    });
  }
  const m = /^\/dashboard\/assets\/([^/]+)$/.exec(path);
  const asset = m ? files.asset(m[1]) : null;
  if (!asset) return send(req, res, 404, { "content-type": "text/plain; charset=utf-8" }, "not found");
  return sendFile(req, res, await asset, {});
}

function sendFile(req: IncomingMessage, res: ServerResponse, file: File, extra: Record<string, string>): void {
  const gzip = file.gzipped && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
  send(
    req,
    res,
    200,
    {
      "content-type": file.type,
      "cache-control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
      ...(file.gzipped ? { vary: "Accept-Encoding" } : {}),
      ...(gzip ? { "content-encoding": "gzip" } : {}),
      ...extra,
    },
    gzip ? file.gzipped! : file.body,
  );
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string | Buffer,
): void {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  res.writeHead(status, {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "content-length": String(bytes.length),
    ...headers,
  });
  res.end(req.method === "HEAD" ? undefined : bytes);
}
