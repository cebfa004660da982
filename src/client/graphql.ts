import { initGraphQLTada } from "gql.tada";
import type { CheckDocument } from "./check-document.ts";
import type { introspection } from "./graphql-env.ts";

/**
 * tai42's schema as gql.tada sees it: the introspection generated from schema.graphql
 * (`npm run client:introspection`) and the custom scalars' TypeScript types.
 */
export interface TaiSchema {
  introspection: introspection;
  scalars: {
    /** An ISO 8601 date-time string at UTC, as the server writes it. */
    DateTime: string;
    /** Any JSON value. */
    JSON: unknown;
    /** A JSON object. */
    JSONObject: Record<string, unknown>;
  };
}

const tada = initGraphQLTada<TaiSchema>();
type Tada = typeof tada;
/** A fragment document, as the second argument of {@link graphql} takes them. */
type FragmentDocument = NonNullable<Parameters<Tada>[1]>[number];

/**
 * gql.tada's `graphql` over tai42's schema, with one more check: a field the schema does
 * not have is a type error ({@link CheckDocument}), where gql.tada alone types it `unknown`.
 */
export interface TaiGraphQL extends Pick<Tada, "scalar" | "persisted" | "__name"> {
  // The directive below is a JSDoc comment so that the emitted declarations keep it: the
  // instantiation `typeof tada<In, Fragments>` also meets gql.tada's first overload (its
  // turbo cache), whose constraint a string `In` fails; ReturnType reads the last, general one.
  // One line, so that the directive covers the whole signature:
  // (@ts-expect-error would fail where the overload matches.)
  /* eslint-disable max-len */
  // prettier-ignore
  // eslint-disable-next-line @typescript-eslint/ban-ts-comment
  /** @ts-ignore see above */
  <const In extends string, const Fragments extends readonly FragmentDocument[] = readonly []>(input: In & CheckDocument<In>, fragments?: Fragments): ReturnType<typeof tada<In, Fragments>>;
  /* eslint-enable max-len */
}

/**
 * Types a GraphQL document against tai42's schema, with no build step: the result and the
 * variables of `graphql(\`query { … }\`)` are inferred by the TypeScript compiler, and a
 * field the schema does not have is a type error. Fragments are passed as the second
 * argument (`graphql(query, [Fragment])`) and read with {@link readFragment}.
 */
export const graphql: TaiGraphQL = tada as TaiGraphQL;

/**
 * `T` with `undefined` allowed in its optional properties: what a caller compiled with
 * `exactOptionalPropertyTypes` may pass (`{ tool: maybeName }`); gql.tada's variables take
 * `null` there, and `undefined` is left out of the JSON sent.
 */
// `{} extends Pick<T, K>`: true exactly when K is optional.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type Undefinable<T> = { [K in keyof T]: {} extends Pick<T, K> ? Loose<T[K]> | undefined : Loose<T[K]> };
/** An input object's own optional properties made {@link Undefinable} too (lists and scalars as they are). */
type Loose<V> = V extends readonly unknown[] ? V : V extends object ? Undefinable<V> : V;

export { readFragment } from "gql.tada";
export type { FragmentOf, ResultOf, VariablesOf, TadaDocumentNode } from "gql.tada";
