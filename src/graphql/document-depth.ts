import { GraphQLError, Lexer, Source, TokenKind, type Token } from "graphql";
import type { Plugin } from "graphql-yoga";
import { MAX_JSON_DEPTH } from "../tools/json-depth.ts";

/**
 * How deep a GraphQL document's selection sets may nest, counted in braces, before it is
 * parsed. graphql-armor's depth limit (12 fields) is checked on the parsed document; this
 * bound only keeps the recursive parser from being reached by a hostile nesting.
 */
export const MAX_SELECTION_NESTING = 64;

/**
 * Why the document `text` nests too deep to parse, or null: an input value (an object or
 * list literal, or a variable's list type) deeper than {@link MAX_JSON_DEPTH} levels, or
 * selection sets deeper than {@link MAX_SELECTION_NESTING}. graphql-js parses values and
 * selections recursively, so thousands of levels overflow the stack (an "Unexpected
 * error."); this scan uses graphql-js's own lexer (token by token, no recursion), in
 * linear time. A lexing error is left to the parser, which reports it.
 */
export function documentTooDeep(text: string): string | null {
  // One entry per open `{` / `[`: whether it opens a value (rather than a selection set).
  const open: boolean[] = [];
  let values = 0;
  const lexer = new Lexer(new Source(text));
  let previous: Token | null = null;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; previous = token, token = lexer.advance()) {
      if (token.kind === TokenKind.BRACE_L || token.kind === TokenKind.BRACKET_L) {
        // A value follows `:` (an argument, an object field, a variable's type) or `=` (a default), or sits inside a
        // value.
        const value = open.at(-1) === true || previous?.kind === TokenKind.COLON || previous?.kind === TokenKind.EQUALS;
        open.push(value);
        if (value && ++values > MAX_JSON_DEPTH)
          return `an input value in the document is nested deeper than ${MAX_JSON_DEPTH} levels`;
        if (open.length - values > MAX_SELECTION_NESTING)
          return `the document's selection sets are nested deeper than ${MAX_SELECTION_NESTING} levels`;
      } else if (token.kind === TokenKind.BRACE_R || token.kind === TokenKind.BRACKET_R) {
        if (open.pop()) values--;
      }
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * Refuses a document nested too deep ({@link documentTooDeep}) before graphql-js parses
 * it, with `BAD_USER_INPUT` naming the limit, on every transport that parses through
 * yoga's envelop (HTTP, SSE, graphql-ws). Listed after graphql-armor's plugin, whose
 * token limit replaces the parse function too: the refusal must be the one that runs.
 */
export function useDocumentDepthLimit(): Plugin {
  return {
    onParse({ params, setParseFn }) {
      const text = typeof params.source === "string" ? params.source : params.source.body;
      const why = documentTooDeep(text);
      if (why)
        setParseFn(() => {
          throw new GraphQLError(`the operation exceeds a server limit: ${why}`, {
            extensions: { code: "BAD_USER_INPUT" },
          });
        });
    },
  };
}
