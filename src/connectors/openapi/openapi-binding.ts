/** Where a parameter goes in the request. */
export type ParameterLocation = "path" | "query" | "header" | "cookie";

/** One parameter of an operation as a call needs it (stored in the tool's `binding`). */
export interface BoundParameter {
  /** The parameter's name in the request. */
  name: string;
  in: ParameterLocation;
  /**
   * The input property holding its value (the name, or `<in>.<name>` when the name is taken, docs/connectors.md §9).
   */
  property: string;
  /**
   * The OpenAPI serialization style (`simple`, `label`, `matrix`, `form`, `spaceDelimited`, `pipeDelimited`,
   * `deepObject`).
   */
  style: string;
  explode: boolean;
  /** Query values keep RFC 3986 reserved characters unencoded. */
  allowReserved?: boolean;
  /** Described by `content` (a JSON media type): the value is sent as its JSON text. */
  json?: boolean;
}

/** What a call of one imported operation needs: kind-private, stored with the listing. */
export interface OpenApiBinding {
  /** Upper-case HTTP method. */
  method: string;
  /** The path template (`/pets/{petId}`). */
  path: string;
  /**
   * The operation's server (operation-, path- or document-level; variables at their defaults), absent when the document
   * names none.
   */
  server?: string;
  parameters: BoundParameter[];
  /** The request body, sent from the `body` input property. */
  body?: { mediaType: string; required: boolean; encoding: "json" | "form" };
}

/** Reads a tool's stored binding back (stored JSON, written by the importer). */
export function bindingOf(binding: Record<string, unknown> | undefined): OpenApiBinding {
  if (
    !binding ||
    typeof binding.method !== "string" ||
    typeof binding.path !== "string" ||
    !Array.isArray(binding.parameters)
  )
    throw new Error("the tool has no OpenAPI binding");
  return binding as unknown as OpenApiBinding;
}
