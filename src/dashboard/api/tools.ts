import { graphql, type ResultOf } from "tai42/client";

export const ToolFields = graphql(`
  fragment ToolFields on Tool @_unmask {
    name
    label
    description
    origin
    tier
    inputSchema
    outputSchema
    executionMode
    pauses
    baseTool
    extensionStack
    fixedKwargs
    timeoutSeconds
    limits {
      declaredOn
      concurrency {
        max
        scope
        waitSeconds
      }
      rate {
        tokens
        intervalSeconds
        burst
        per
      }
      breaker {
        failures
        coolDownSeconds
      }
    }
    breakerOpenSeconds
    retryExplained
    retryPolicy {
      maxAttempts
      idempotent
      retryableKinds
      declaredOn
      backoff {
        initialSeconds
        multiplier
        capSeconds
      }
    }
  }
`);

/** One callable name on the surface: a tool, preset, branch or agent. */
export type Tool = ResultOf<typeof ToolFields>;

export const ToolsQuery = graphql(
  `
    query Tools {
      tools {
        ...ToolFields
      }
    }
  `,
  [ToolFields],
);

/** The whole surface as it is once listening, then again after each change. */
export const ToolsChangedSubscription = graphql(
  `
    subscription ToolsChanged {
      toolsChanged(current: true) {
        ...ToolFields
      }
    }
  `,
  [ToolFields],
);

/** The surface in a stable order: by origin (tools, presets, branches, agents), then name. */
export function sortTools(tools: readonly Tool[]): Tool[] {
  const order = ["TOOL", "PRESET", "BRANCH", "AGENT"];
  return [...tools].sort((a, b) => order.indexOf(a.origin) - order.indexOf(b.origin) || a.name.localeCompare(b.name));
}
