import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { GraphQLError, type ValidationContext } from "graphql";

/**
 * An armor refusal as an ordinary operation error: `BAD_USER_INPUT`, a message without
 * armor's misleading "Syntax Error:" prefix. Validation limits are reported to the
 * validation context, so they come back like any validation error on every transport;
 * armor's default is to throw from inside `validate`, which graphql-ws answers by closing
 * the whole socket (4500) and killing the caller's other subscriptions.
 */
function refuse(context: ValidationContext | null, error: GraphQLError): void {
  const refusal = new GraphQLError(
    `the operation exceeds a server limit: ${error.message.replace(/^Syntax Error:\s*/, "")}`,
    {
      extensions: { code: "BAD_USER_INPUT" },
    },
  );
  // The token limit is checked while parsing, where there is no validation context:
  // throwing is how a parse fails, and every transport answers it as an operation error.
  if (!context) throw refusal;
  context.reportError(refusal);
}

const reject = { propagateOnRejection: false, onReject: [refuse] };

/** graphql-armor's limits (depth, aliases, directives, tokens, cost) for yoga and graphql-ws alike. */
export function operationLimits() {
  return EnvelopArmorPlugin({
    maxDepth: { n: 12, ignoreIntrospection: true, ...reject },
    maxAliases: { n: 15, ...reject },
    maxDirectives: { n: 20, ...reject },
    maxTokens: { n: 5000, ...reject },
    costLimit: { maxCost: 20000, ...reject },
    blockFieldSuggestion: { enabled: false },
  });
}
