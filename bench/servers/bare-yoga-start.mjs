// Start-up baseline for `tai serve`: first imports every package tai42's own modules import
// on their way to "listening" (the list a recorded `tai serve` start wrote, a JSON array
// in the file named by BARE_IMPORTS; see bench/lib/record-imports.mjs), then starts a bare
// graphql-yoga server with graphql-ws on one node:http server, as graphql-yoga's own
// example wires it, and prints "listening". Plain JavaScript: no TypeScript loader.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

for (const specifier of JSON.parse(readFileSync(process.env.BARE_IMPORTS, "utf8"))) await import(specifier);
const { createSchema, createYoga } = await import("graphql-yoga");
const { useServer } = await import("graphql-ws/use/ws");
const { WebSocketServer } = await import("ws");

const yoga = createYoga({
  schema: createSchema({ typeDefs: "type Query { hello: String! }", resolvers: { Query: { hello: () => "hi" } } }),
});
const server = createServer(yoga);
const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint });
useServer(
  {
    execute: (args) => args.rootValue.execute(args),
    subscribe: (args) => args.rootValue.subscribe(args),
    onSubscribe: async (ctx, _id, params) => {
      const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
        ...ctx,
        req: ctx.extra.request,
        socket: ctx.extra.socket,
        params,
      });
      const args = {
        schema,
        operationName: params.operationName,
        document: parse(params.query),
        variableValues: params.variables,
        contextValue: await contextFactory(),
        rootValue: { execute, subscribe },
      };
      const errors = validate(args.schema, args.document);
      return errors.length ? errors : args;
    },
  },
  wss,
);
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () =>
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}${yoga.graphqlEndpoint}\n`),
);
process.once("SIGTERM", () => {
  wss.close();
  server.close(() => process.exit(0));
});
