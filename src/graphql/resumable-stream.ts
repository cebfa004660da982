import { GraphQLError } from "graphql";
import { ResumableStreamError } from "../events/bus.ts";

/** How {@link resumableStream} reads the stream it adapts. */
export interface ResumableStreamOptions<T, U> {
  /** Where the subscriber asked to start; null when it asked for live events only. */
  afterSeq: number | null;
  /** An entry's seq: the afterSeq to resume after it. */
  seq: (e: T) => number;
  /** The arguments the resubscribe hint names, e.g. "afterSeq" or "runId and afterSeq". */
  resumeWith: string;
  /** The server-closed errors this stream turns into a resume hint. @default every ResumableStreamError */
  resumable?: (e: unknown) => e is ResumableStreamError;
  /** The entry as the schema serves it, given the last seq delivered; may throw to end the stream (a failed run). */
  map?: (e: T, last: number | null) => U;
}

/**
 * The GraphQL side of a followed log (`events/event-log.ts`): a stream the server closed on purpose (a lagging
 * subscriber, an unreadable gap) ends with a GraphQLError that tells where to resume: the last entry delivered, else
 * where the subscriber asked to start (never 0 for one that started later: that would replay the whole log).
 */
export async function* resumableStream<T, U = T>(
  stream: AsyncIterable<T>,
  options: ResumableStreamOptions<T, U>,
): AsyncGenerator<U> {
  const resumable = options.resumable ?? ((e: unknown) => e instanceof ResumableStreamError);
  const map = options.map ?? ((e: T) => e as unknown as U);
  let last: number | null = options.afterSeq;
  try {
    for await (const e of stream) {
      const out = map(e, last);
      last = options.seq(e);
      yield out;
    }
  } catch (e) {
    if (!resumable(e)) throw e;
    if (last === null)
      throw new GraphQLError(`${e.message}; resubscribe to continue (nothing was delivered yet)`, {
        extensions: { code: e.code },
      });
    throw new GraphQLError(`${e.message}; resubscribe with ${options.resumeWith}: ${last} to resume without loss`, {
      extensions: { code: e.code, afterSeq: last },
    });
  }
}
