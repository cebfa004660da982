// tai42/client: the typed client of a tai42 server, for browsers and Node (docs/client.md).
// Nothing here may import server code: test/architecture.test.ts keeps this folder's
// import graph inside src/client/ and the packages it names.
export { AnswerAccumulator, answerText } from "./answer-text.ts";
export type { AnswerEventLike } from "./answer-text.ts";
export { createTaiClient } from "./create-client.ts";
export type {
  DispatchOptions,
  OperationArgs,
  RequestOptions,
  TaiClient,
  TaiClientOptions,
  TaiStream,
  TaiSubscription,
} from "./create-client.ts";
export { graphql, readFragment } from "./graphql.ts";
export type { FragmentOf, ResultOf, TadaDocumentNode, TaiSchema, VariablesOf } from "./graphql.ts";
export type {
  AgentRunInput,
  AgentRunPage,
  AgentRunsFilter,
  RunEvent,
  RunsFilter,
  RunStatus,
  SettledStatus,
  StreamEvent,
  ToolRun,
  ToolRunPage,
} from "./documents.ts";
export { TaiGraphQLError, TaiTransportError } from "./errors.ts";
export type { TaiErrorEntry } from "./errors.ts";
export type { RetryOptions } from "./retry.ts";
export type {
  ToolInput,
  ToolInputArg,
  ToolMap,
  ToolName,
  ToolOutput,
  ToolTypes,
  TypedToolRun,
  UntypedTools,
} from "./tool-types.ts";
export type { WaitOptions } from "./wait-for-run.ts";
