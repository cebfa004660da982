import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import type { ExecutionArgs } from "graphql";
import { createPubSub, createSchema, createYoga } from "graphql-yoga";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import { childArgs, nowMs, runChild } from "../lib/child-harness.ts";
import { closeServer, listenLocal } from "../lib/listen.ts";
import { Gate, streamText } from "../lib/stream-text.ts";

/**
 * Baseline (b): a bare graphql-yoga server, the stack's own limit. An `echo` mutation with
 * no persistence; for fan-out, `emit` publishes a started and a finished event through
 * `createPubSub` with the shape and size of tai42's run events; for streaming, a
 * subscription yields the same payloads as a tai42 agent run. graphql-ws is wired the way
 * graphql-yoga's own example does it (onSubscribe → yoga.getEnveloped). Request body
 * limit as tai42's default (1 MiB), so the comparison isolates tai42's own work.
 */
const typeDefs = /* GraphQL */ `
  scalar JSON
  type Query {
    ok: Boolean!
  }
  type Mutation {
    echo(text: String!): String!
    emit(text: String!): Boolean!
  }
  type ContentBlock {
    type: String!
    text: String
  }
  type Run {
    id: ID!
    tool: String!
    status: String!
    input: JSON
    content: [ContentBlock!]!
  }
  type RunEvent {
    seq: Int!
    type: String!
    at: String!
    run: Run!
  }
  interface StreamEventBase {
    type: String!
    final: Boolean!
    seq: Int!
    runId: ID!
    agent: String
  }
  type MessageDelta implements StreamEventBase {
    type: String!
    final: Boolean!
    seq: Int!
    runId: ID!
    agent: String
    text: String!
  }
  type MessageFinal implements StreamEventBase {
    type: String!
    final: Boolean!
    seq: Int!
    runId: ID!
    agent: String
    text: String!
  }
  type RunUsage implements StreamEventBase {
    type: String!
    final: Boolean!
    seq: Int!
    runId: ID!
    agent: String
    inputTokens: Int
    outputTokens: Int
    totalTokens: Int
    model: String
  }
  union StreamEvent = MessageDelta | MessageFinal | RunUsage
  type Subscription {
    runEvents: RunEvent!
    agentStream(deltas: Int!): StreamEvent!
  }
`;

interface RunEvent {
  seq: number;
  type: string;
  at: string;
  run: { id: string; tool: string; status: string; input: unknown; content: { type: string; text: string }[] };
}

const TYPENAME: Record<string, string> = {
  message_delta: "MessageDelta",
  message_final: "MessageFinal",
  run_usage: "RunUsage",
};

runChild(async () => {
  const { bodyLimit = 1_048_576 } = childArgs<{ bodyLimit?: number }>();
  const pubSub = createPubSub<{ runEvent: [RunEvent] }>();
  const published = new Map<number, number>();
  const gate = new Gate();
  let seq = 0;
  const publish = (e: RunEvent) => {
    published.set(e.seq, nowMs());
    pubSub.publish("runEvent", e);
  };

  const schema = createSchema({
    typeDefs,
    resolvers: {
      Query: { ok: () => true },
      Mutation: {
        echo: (_: unknown, { text }: { text: string }) => text,
        emit: (_: unknown, { text }: { text: string }) => {
          const run = {
            id: randomUUID(),
            tool: "echo",
            status: "RUNNING",
            input: { text },
            content: [] as RunEvent["run"]["content"],
          };
          publish({ seq: ++seq, type: "RUN_STARTED", at: new Date().toISOString(), run });
          publish({
            seq: ++seq,
            type: "RUN_FINISHED",
            at: new Date().toISOString(),
            run: { ...run, status: "SUCCEEDED", content: [{ type: "text", text }] },
          });
          return true;
        },
      },
      Subscription: {
        runEvents: { subscribe: () => pubSub.subscribe("runEvent"), resolve: (e: RunEvent) => e },
        agentStream: {
          subscribe: async function* (_: unknown, { deltas }: { deltas: number }) {
            const runId = randomUUID();
            const { text, chunks } = streamText(deltas);
            await gate.pass();
            let n = 0;
            for (const chunk of chunks)
              yield { type: "message_delta", final: false, seq: ++n, runId, agent: null, text: chunk };
            const tokens = Math.ceil(text.length / 4);
            yield {
              type: "run_usage",
              final: false,
              seq: ++n,
              runId,
              agent: null,
              inputTokens: 10,
              outputTokens: tokens,
              totalTokens: tokens + 10,
              model: "bench-stream",
            };
            yield { type: "message_final", final: true, seq: n + 1, runId, agent: null, text };
          },
          resolve: (e: unknown) => e,
        },
      },
      StreamEventBase: { __resolveType: (e: { type: string }) => TYPENAME[e.type] },
      StreamEvent: { __resolveType: (e: { type: string }) => TYPENAME[e.type] },
    },
  });

  const yoga = createYoga({
    schema,
    graphqlEndpoint: "/graphql",
    logging: false,
    graphiql: false,
    landingPage: false,
    maxRequestBodySize: bodyLimit,
  });
  const server = createServer(yoga);
  const wss = new WebSocketServer({ server, path: "/graphql" });
  useServer(
    {
      execute: (args) => (args.rootValue as { execute: (a: ExecutionArgs) => never }).execute(args),
      subscribe: (args) => (args.rootValue as { subscribe: (a: ExecutionArgs) => never }).subscribe(args),
      onSubscribe: async (ctx, _id, params) => {
        const {
          schema: s,
          execute,
          subscribe,
          contextFactory,
          parse,
          validate,
        } = yoga.getEnveloped({ ...ctx, req: ctx.extra.request, socket: ctx.extra.socket, params });
        const args = {
          schema: s,
          operationName: params.operationName,
          document: parse(params.query),
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        } as ExecutionArgs;
        const errors = validate(args.schema, args.document);
        return errors.length ? errors : args;
      },
    },
    wss,
  );
  const origin = await listenLocal(server);
  return {
    url: `${origin}/graphql`,
    commands: {
      published: () => Object.fromEntries(published),
      resetPublished: () => published.clear(),
      arm: () => gate.arm(),
      waiting: () => gate.waiting,
      open: () => gate.open(nowMs()),
    },
    async stop() {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      await closeServer(server);
    },
  };
});
