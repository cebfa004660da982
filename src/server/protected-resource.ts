import type { IncomingMessage, ServerResponse } from "node:http";
import type { IdentityConfig } from "../auth/identity-config.ts";
import type { Runtime } from "../runtime.ts";

/** Where this server's protected resource metadata is served (RFC 9728 §3): the root, and path-aware for `/mcp`. */
const METADATA_PATHS = new Set(["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]);
/** The MCP path's metadata document, the one a 401 from `/mcp` points at. */
const MCP_METADATA_PATH = "/.well-known/oauth-protected-resource/mcp";

/** What an MCP client's discovery may send (the SDK sends `MCP-Protocol-Version`, which needs a preflight). */
const OPEN_CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "mcp-protocol-version, accept",
  "access-control-max-age": "600",
};

/** The RFC 9728 metadata document of this server as an OAuth protected resource. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: ["header"];
  resource_name: "tai42";
}

/** Whether access tokens are accepted: issuers are configured. */
export function identityConfigured(rt: Runtime): boolean {
  return protectedResourceMetadata(rt.config.identity) !== null;
}

/** The metadata document for the identity configuration; null when no issuer is configured (no tokens accepted). */
export function protectedResourceMetadata(
  identity: Pick<IdentityConfig, "resource" | "issuers"> | undefined,
): ProtectedResourceMetadata | null {
  if (!identity?.issuers.length) return null;
  return {
    resource: identity.resource,
    authorization_servers: identity.issuers.map((i) => i.issuer),
    bearer_methods_supported: ["header"],
    resource_name: "tai42",
  };
}

/**
 * Serves `/.well-known/oauth-protected-resource` and `/.well-known/oauth-protected-resource/mcp` (RFC 9728): public
 * (no caller is asked for) and readable from any origin, as an MCP client's discovery needs; 404 when no issuer is
 * configured. The server's Host check has run before. Returns false for any other request.
 */
export function serveProtectedResource(rt: Runtime, req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? "").split("?")[0];
  if (!METADATA_PATHS.has(path)) return false;
  if (req.method === "OPTIONS") {
    res.writeHead(204, OPEN_CORS).end();
    return true;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    send(res, 405, error(`${path} answers GET and HEAD only`, "METHOD_NOT_ALLOWED"), { allow: "GET, HEAD" });
    return true;
  }
  const metadata = protectedResourceMetadata(rt.config.identity);
  if (!metadata) send(res, 404, error("no token issuer is configured (identity / TAI_IDENTITY)", "NOT_FOUND"));
  else send(res, 200, metadata);
  return true;
}

/** The URL of the metadata a 401 from `/mcp` names: under the server's public URL (TAI_PUBLIC_URL, or as bound). */
export function mcpResourceMetadataUrl(rt: Runtime): string {
  return `${rt.publicUrl.replace(/\/+$/, "")}${MCP_METADATA_PATH}`;
}

/** Why a request's credential was refused, for the `error` of a Bearer challenge (RFC 6750 §3.1). */
export type BearerRefusal = { error: "invalid_token" | "invalid_request"; description: string };

/**
 * The `WWW-Authenticate` value of a 401 (RFC 6750 §3, RFC 9728 §5.1). Without issuers: `Bearer realm="tai42"` (API
 * keys only, nothing to discover). With issuers: `Bearer resource_metadata="…"`, plus the `error` and its description
 * when a credential was sent and refused. The description is reduced to the characters RFC 6750 allows in it.
 */
export function bearerChallenge(rt: Runtime, refusal?: BearerRefusal): string {
  if (!identityConfigured(rt)) return 'Bearer realm="tai42"';
  const params = [`resource_metadata="${mcpResourceMetadataUrl(rt)}"`];
  if (refusal) {
    const description = refusal.description.replace(/"/g, "'").replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "");
    params.push(`error="${refusal.error}"`, `error_description="${description.slice(0, 300)}"`);
  }
  return `Bearer ${params.join(", ")}`;
}

function error(message: string, code: string) {
  return { errors: [{ message, extensions: { code } }] };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...OPEN_CORS,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(res.req?.method === "HEAD" ? undefined : text);
}
