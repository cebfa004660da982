import { useCSRFPrevention } from "@graphql-yoga/plugin-csrf-prevention";
import { createGraphQLError, type Plugin } from "graphql-yoga";

/** Headers that mark a request as sent by a script (so a browser preflighted it cross-site). */
export const CSRF_HEADERS = ["x-graphql-csrf", "x-graphql-yoga-csrf"];

/**
 * CSRF prevention (docs/security-model.md §5), by yoga's own plugin: a request must carry a
 * non-simple content type (`application/json`, `application/graphql-response+json`…) or
 * one of {@link CSRF_HEADERS}. A browser sends neither cross-site without a CORS
 * preflight, so form-encoded, multipart and `text/plain` posts — and header-less GETs —
 * are refused before they are parsed. Mutations over GET are refused by yoga itself (405).
 *
 * The plugin's own refusal is a bare 403 "Required CSRF header(s) not present"; it is
 * re-raised here as `400 BAD_REQUEST` with a message that says what to send.
 */
export function csrfPrevention(): Plugin {
  const inner = useCSRFPrevention({ requestHeaders: CSRF_HEADERS }) as Plugin;
  return {
    onRequestParse(payload) {
      try {
        return inner.onRequestParse?.(payload as never);
      } catch {
        throw createGraphQLError(
          `refused as a possible cross-site request forgery: send the body as application/json, or add an "${CSRF_HEADERS[0]}" header`,
          {
            extensions: { code: "BAD_REQUEST", http: { status: 400 } },
          },
        );
      }
    },
  };
}
