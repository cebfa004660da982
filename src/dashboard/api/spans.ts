import { graphql, type ResultOf } from "tai42/client";

const SpanFields = graphql(`
  fragment SpanFields on Span @_unmask {
    id
    tool
    runId
    startedAt
    finishedAt
    durationMs
    status
    attributes
  }
`);

/** One traced call of a monitored branch. */
export type Span = ResultOf<typeof SpanFields>;

export const RecentSpansQuery = graphql(
  `
    query RecentSpans($first: Int) {
      recentSpans(first: $first) {
        ...SpanFields
      }
    }
  `,
  [SpanFields],
);

/** Spans as they open (RUNNING) and close (with their status and durationMs). */
export const SpansSubscription = graphql(
  `
    subscription Spans {
      spans {
        ...SpanFields
      }
    }
  `,
  [SpanFields],
);

/** Spans by id, newest first: a span's closing replaces its opening. */
export function mergeSpans(spans: readonly Span[], next: readonly Span[], limit = 200): Span[] {
  const byId = new Map(spans.map((s) => [s.id, s]));
  for (const s of next) byId.set(s.id, s);
  return [...byId.values()].sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt)).slice(0, limit);
}
