import type { Caller } from "../auth/roles.ts";
import { requireAdmin as requireAdminCaller } from "../auth/ownership.ts";
import { ApiError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import type { SurfaceView } from "../registry/surface-snapshot.ts";

/** What every resolver receives: the runtime and who is calling (null: no access). */
export interface GraphQLContext {
  runtime: Runtime;
  caller: Caller | null;
  /**
   * The surface this operation reads. A query reads one snapshot, taken as it begins
   * (`pinned-surface.ts`): the tools it lists and the manifest it names always agree. A
   * mutation reads the current surface (its results show what it wrote), and so does a
   * subscription (its events show what changed).
   */
  surface: SurfaceView;
  /** Aborted when the request or socket ends. */
  signal?: AbortSignal;
  /**
   * Registers a stream of a caller so that revoking its key, or its access token ending, ends it, by the bus and by
   * polling (the server's `KeyStreams`); `end` says why. Returns the release. Without it, key streams listen to the
   * bus alone.
   */
  holdCaller?: (caller: Caller, end: (reason: string) => void) => () => void;
}

/** The caller, or UNAUTHENTICATED when the request carries no usable identity. */
export function requireCaller(ctx: GraphQLContext): Caller {
  if (!ctx.caller)
    throw new ApiError("UNAUTHENTICATED", "authentication required: send Authorization: Bearer <key or access token>");
  return ctx.caller;
}

/** The caller if it is an admin, else FORBIDDEN. */
export function requireAdmin(ctx: GraphQLContext, what: string): Caller {
  return requireAdminCaller(requireCaller(ctx), what);
}
