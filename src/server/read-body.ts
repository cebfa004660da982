import type { IncomingMessage } from "node:http";

/** An oversized body is drained up to this many times the limit before the socket is cut. */
const DRAIN_FACTOR = 8;

/** What reading a request body gave. */
export type BodyRead =
  | { ok: true; body: Buffer }
  /** Over the limit, read to its end: answer 413 with `Connection: close`. */
  | { ok: false; reason: "too-large" }
  /** The client went away, or kept sending far past the limit: destroy the response. */
  | { ok: false; reason: "gone" };

/**
 * Reads a request body of at most `limit` bytes. An oversized body is read to its end
 * (up to a bound), so a 413 reaches a client still sending and the connection closes
 * cleanly: answering mid-body and closing with unread data in the socket makes the
 * kernel reset it.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  let size = 0;
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size <= limit) chunks.push(chunk as Buffer);
      else if (size > limit * DRAIN_FACTOR) return { ok: false, reason: "gone" };
    }
  } catch {
    // The client went away before the body ended. (Left uncaught, this rejection would
    // take the whole server down.)
    return { ok: false, reason: "gone" };
  }
  if (size > limit) return { ok: false, reason: "too-large" };
  return { ok: true, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) };
}
