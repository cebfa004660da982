import { randomUUID } from "node:crypto";

/**
 * A run's id: a UUID version 7 (RFC 9562), its first 48 bits the time in milliseconds,
 * the other 74 random. Ids made one after the other sort together, so every index keyed
 * by a run's id (the run's own, its events', its attempts') grows at its end: a batch of
 * the run log writes a few index pages instead of one per run scattered over the whole
 * index (docs/performance.md, "The MCP door"). Still unguessable; a run's start time is
 * no secret (`startedAt`).
 */
export function newRunId(now = Date.now()): string {
  // A version 4 UUID has the layout and the variant bits of a version 7 one: its first
  // 48 random bits become the time, its version digit a 7.
  const time = now.toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}
