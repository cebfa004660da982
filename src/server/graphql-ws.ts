import type { ExecutionArgs } from "graphql";
import { GraphQLError } from "graphql";
import type { Context, SubscribePayload } from "graphql-ws";
import { useServer, type Extra } from "graphql-ws/use/ws";
import type { WebSocketServer } from "ws";
import type { Caller } from "../auth/roles.ts";
import { ApiError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import { authenticate } from "./authenticate.ts";
import type { KeyStreams } from "./key-streams.ts";
import { closeReason, connectionAuthorization, operationAuthorization } from "./ws-auth.ts";
import type { TaiYoga } from "./yoga.ts";

type WsExtra = { caller?: Caller | null };
type WsContext = Context<Record<string, unknown> | undefined, Extra & WsExtra>;

/** graphql-ws on the `/graphql` socket server: its operations run through yoga's envelop. */
export function serveGraphqlWs(rt: Runtime, wss: WebSocketServer, yoga: TaiYoga, keyStreams: KeyStreams): void {
  useServer<Record<string, unknown> | undefined, WsExtra>(
    {
      execute: (args) => (args.rootValue as { execute: (a: ExecutionArgs) => never }).execute(args),
      subscribe: (args) => (args.rootValue as { subscribe: (a: ExecutionArgs) => never }).subscribe(args),
      onConnect: (ctx) => connect(rt, keyStreams, ctx),
      onSubscribe: (ctx, _id, params) => subscribe(rt, yoga, ctx, params),
    },
    wss,
  );
}

/** The socket is authenticated once, on connection_init; a bad key refuses it. */
async function connect(rt: Runtime, keyStreams: KeyStreams, ctx: WsContext): Promise<boolean> {
  const socket = ctx.extra.socket;
  try {
    const caller = await authenticate(rt, connectionAuthorization(ctx.connectionParams));
    ctx.extra.caller = caller;
    if (caller)
      socket.once(
        "close",
        keyStreams.hold(caller, (reason) => socket.close(4403, closeReason(`Forbidden: ${reason}`))),
      );
    return true;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    socket.close(4403, closeReason(`Forbidden: ${e.message}`)); // graphql-ws's own close says only "Forbidden"
    return false;
  }
}

/**
 * An operation carrying its own Authorization header (GraphiQL sends its Headers tab
 * so) runs as that key; the socket's caller otherwise. A bad key fails the operation.
 */
async function subscribe(
  rt: Runtime,
  yoga: TaiYoga,
  ctx: WsContext,
  params: SubscribePayload,
): Promise<ExecutionArgs | readonly GraphQLError[]> {
  let caller = ctx.extra.caller ?? null;
  try {
    const authorization = operationAuthorization(params.extensions);
    if (authorization !== undefined) caller = await authenticate(rt, authorization);
    // The socket's key as it is now (a rate set since it connected; cached 1 s): as a request over HTTP sees it.
    else if (caller?.keyId) caller = await authenticate(rt, connectionAuthorization(ctx.connectionParams));
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return [new GraphQLError(e.message, { extensions: { code: e.code } })];
  }
  const {
    schema: s,
    execute,
    subscribe,
    contextFactory,
    parse,
    validate,
  } = yoga.getEnveloped({
    ...ctx,
    req: ctx.extra.request,
    socket: ctx.extra.socket,
    params,
    wsCaller: caller,
  });
  let document;
  try {
    document = parse(params.query);
  } catch (e) {
    return [e as never];
  }
  const args = {
    schema: s,
    operationName: params.operationName,
    document,
    variableValues: params.variables,
    contextValue: await contextFactory(),
    rootValue: { execute, subscribe },
  } as ExecutionArgs;
  const errors = validate(args.schema, args.document);
  if (errors.length) return errors;
  return args;
}
