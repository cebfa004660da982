import type { ConnectorConnection, ConnectorEnv, ConnectorKind, UpstreamListing } from "../connector-kind.ts";
import { callOperation, settingsServer } from "./openapi-call.ts";
import { bundleExternalRefs, checkVersion, fetchText, parseDocumentText } from "./openapi-document.ts";
import { OPENAPI_SETTINGS, type OpenApiSettings } from "./openapi-settings.ts";
import { importOperations } from "./operation-import.ts";
import { firstServer } from "./server-url.ts";

export type { OpenApiSettings } from "./openapi-settings.ts";

/** Reads (fetches, when `documentUrl`), parses, bundles and imports the document. */
export async function readListing(settings: OpenApiSettings, fetchFn: typeof fetch): Promise<UpstreamListing> {
  const text = settings.document ?? (await fetchText(fetchFn, settings.documentUrl!));
  const doc = await bundleExternalRefs(checkVersion(parseDocumentText(text)), settings.documentUrl, fetchFn);
  return importOperations(doc, settings.documentUrl);
}

/** The origin of a URL, or nothing when it is not an absolute http(s) URL. */
function originOf(url: string | undefined): string[] {
  if (url === undefined) return [];
  try {
    const parsed = new URL(url);
    return ["http:", "https:"].includes(parsed.protocol) ? [parsed.origin] : [];
  } catch {
    return [];
  }
}

/**
 * The servers a stored document names (a URL document is only read at connect: its servers need `serverUrl` or
 * `allowHosts`).
 */
function storedDocumentServers(text: string): string[] {
  try {
    const doc = checkVersion(parseDocumentText(text));
    const servers = [firstServer(doc.servers, undefined)];
    for (const item of Object.values(doc.paths ?? {})) {
      if (typeof item !== "object" || item === null) continue;
      servers.push(firstServer((item as Record<string, unknown>).servers, undefined));
      for (const op of Object.values(item))
        if (typeof op === "object" && op !== null && !Array.isArray(op))
          servers.push(firstServer((op as Record<string, unknown>).servers, undefined));
    }
    return servers.flatMap(originOf);
  } catch {
    return [];
  }
}

/**
 * The `openapi` connector kind (docs/connectors.md §9): an HTTP service described by an
 * OpenAPI 3.x document, one tool per operation, called through the connection's guarded fetch.
 */
export const openapiKind: ConnectorKind<OpenApiSettings> = {
  name: "openapi",
  description:
    "An HTTP service described by an OpenAPI 3.x document (stored text, or a URL read at every put and refresh): one tool per operation.",
  settings: OPENAPI_SETTINGS,
  sealed: ["headers/*"],
  origins(settings) {
    const server = settingsServer(settings.serverUrl, settings.documentUrl);
    const origins = [
      ...originOf(settings.documentUrl),
      ...(server ? originOf(server) : settings.document ? storedDocumentServers(settings.document) : []),
    ];
    return [...new Set(origins)];
  },
  async connect(env: ConnectorEnv<OpenApiSettings>): Promise<ConnectorConnection> {
    const settings = env.settings;
    let first: UpstreamListing | null = await readListing(settings, env.fetch);
    const target = {
      fetch: env.fetch,
      serverUrl: settingsServer(settings.serverUrl, settings.documentUrl),
      headers: { ...(settings.headers ?? {}) },
    };
    return {
      async list() {
        // The connect's own reading answers the first list; a later one reads the document again.
        const listing = first ?? (await readListing(settings, env.fetch));
        first = null;
        return listing;
      },
      call: (tool, input, call) => callOperation(target, tool, input, call),
      async close() {},
    };
  },
};
