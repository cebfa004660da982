import type { ObjectRef } from "@pothos/core";
import { ApiError } from "../errors.ts";
import { builder } from "./builder.ts";

/**
 * Relay-style connections over lists ordered newest first by (startedAt, id): the page
 * types, the opaque keyset cursor, and reading one page plus, on demand, the total.
 */

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** Where a page sits in its list. */
export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** One page of a list; `count` counts the whole list (the same filters and visibility), only when asked for. */
export interface Page<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfo;
  count: () => Promise<number>;
}

/** What keyset pagination orders by. */
interface Keyed {
  startedAt: string;
  id: string;
}

/** The position after which a page starts. */
export type After = { startedAt: Date; id: string };

const PageInfoRef = builder.objectRef<PageInfo>("PageInfo").implement({
  description: "Where a page sits in its list (relay-style).",
  fields: (t) => ({
    hasNextPage: t.exposeBoolean("hasNextPage", {
      description: "True when more items follow the last edge: pass endCursor as after.",
    }),
    hasPreviousPage: t.exposeBoolean("hasPreviousPage", {
      description: "True when this page was read after a cursor.",
    }),
    startCursor: t.string({
      nullable: true,
      description: "The cursor of the first edge; null for an empty page.",
      resolve: (p) => p.startCursor,
    }),
    endCursor: t.string({
      nullable: true,
      description: "The cursor of the last edge; null for an empty page.",
      resolve: (p) => p.endCursor,
    }),
  }),
});

/** Defines `<name>Connection` and `<name>Edge` over `node`, described as lists of `what`. */
export function connectionRef<T>(name: string, node: ObjectRef<BuilderTypes, T>, what: string) {
  const EdgeRef = builder.objectRef<Page<T>["edges"][number]>(`${name}Edge`).implement({
    description: `One of ${what}, with its cursor.`,
    fields: (t) => ({
      cursor: t.exposeString("cursor", { description: "Pass as after to read the items that follow this one." }),
      // A generic T defeats Pothos's inference of what a resolver may return.
      node: t.field({ type: node, description: "The item.", resolve: (e) => e.node as never }),
    }),
  });
  return builder.objectRef<Page<T>>(`${name}Connection`).implement({
    description: `A page of ${what}, newest first (relay-style).`,
    fields: (t) => ({
      edges: t.field({ type: [EdgeRef], description: "The page's items, newest first.", resolve: (c) => c.edges }),
      pageInfo: t.field({
        type: PageInfoRef,
        description: "Where this page sits in the list.",
        resolve: (c) => c.pageInfo,
      }),
      totalCount: t.int({
        description: "How many items the whole list holds, under the same filters and visibility.",
        resolve: (c) => c.count(),
      }),
    }),
  });
}

const cursorOf = (r: Keyed) => Buffer.from(`${r.startedAt}|${r.id}`).toString("base64url");

function parseCursor(cursor: string): After {
  const [at, id] = Buffer.from(cursor, "base64url").toString().split("|");
  const startedAt = new Date(at ?? "");
  if (!id || Number.isNaN(startedAt.getTime()))
    throw ApiError.badInput(`"after" is not a cursor this API issued`, [
      { path: "/after", message: "is not a valid cursor" },
    ]);
  return { startedAt, id };
}

/**
 * Reads the page `first`/`after` asks for: `read(take, after)` returns up to `take` items
 * newest first; `count` counts the whole list. `first` is 1 to 200 (default 20).
 */
export async function readPage<T extends Keyed>(
  args: { first?: number | null; after?: string | null },
  read: (take: number, after: After | undefined) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<Page<T>> {
  const first = args.first ?? 20;
  if (first < 1 || first > 200)
    throw ApiError.badInput(`"first" must be from 1 to 200 (got ${first})`, [
      { path: "/first", message: "must be from 1 to 200" },
    ]);
  const after = args.after ? parseCursor(args.after) : undefined;
  const rows = await read(first + 1, after);
  const edges = rows.slice(0, first).map((node) => ({ cursor: cursorOf(node), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > first,
      hasPreviousPage: Boolean(after),
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    count,
  };
}
