/** A time of day (with the date when it is not today), the full timestamp on hover. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="faint">—</span>;
  const d = new Date(at);
  const today = d.toDateString() === new Date().toDateString();
  const text = today ? d.toLocaleTimeString() : d.toLocaleString();
  return (
    <time dateTime={at} title={d.toISOString()} className="nowrap">
      {text}
    </time>
  );
}

/** How long something took: ms under a second, then seconds, then minutes. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** From start to finish; `open` ("running" unless told) while there is no finish. */
export function Duration({
  from,
  to,
  open = "running",
}: {
  from: string;
  to: string | null | undefined;
  open?: string;
}) {
  if (!to) return <span className="faint">{open}</span>;
  return <span className="nowrap">{formatDuration(Date.parse(to) - Date.parse(from))}</span>;
}

/**
 * The last 8 characters of an id, the whole id on hover. Ids are time-ordered (UUIDv7: the first 8 characters are
 * the same for every run of the same minute or so); their ends are random, so two ids shown together differ.
 */
export function ShortId({ id }: { id: string }) {
  return (
    <code title={id} className="short-id">
      {shortId(id)}
    </code>
  );
}

/** What {@link ShortId} shows of an id. */
export const shortId = (id: string) => `…${id.slice(-8)}`;
