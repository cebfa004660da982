import type { parseDocument } from "gql.tada";
import type { introspection } from "./graphql-env.ts";

type Types = introspection["types"];

/** The named type under a type reference's NON_NULL and LIST wrappers. */
type NamedType<Ref> = Ref extends { kind: "NON_NULL" | "LIST"; ofType: infer Of }
  ? NamedType<Of>
  : Ref extends { name: infer N extends string }
    ? N
    : never;

// `{}`: a type with no fields, as gql.tada's own introspection types spell it.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
type FieldsOf<T extends string> = T extends keyof Types ? (Types[T] extends { fields: infer F } ? F : {}) : {};

/** The type a field of `On` selects into. */
type FieldType<On extends string, F extends string> = F extends keyof FieldsOf<On>
  ? FieldsOf<On>[F] extends { type: infer R }
    ? NamedType<R>
    : never
  : never;

type RootType<Op extends string> = Op extends "query"
  ? introspection["query"]
  : Op extends "mutation"
    ? introspection["mutation"]
    : introspection["subscription"];

type SelectionErrors<Selections, On extends string> = Selections extends readonly (infer S)[]
  ? SelectionError<S, On>
  : never;

type SelectionError<S, On extends string> = S extends {
  arguments: unknown;
  name: { value: infer F extends string };
  selectionSet: infer Sub;
}
  ? F extends "__typename"
    ? never
    : F extends keyof FieldsOf<On>
      ? Sub extends { selections: infer Subs }
        ? SelectionErrors<Subs, FieldType<On, F>>
        : never
      : `${On} has no field "${F}"`
  : S extends { typeCondition: infer Condition; selectionSet: { selections: infer Subs } }
    ? Condition extends { name: { value: infer T extends string } }
      ? T extends keyof Types
        ? SelectionErrors<Subs, T>
        : `there is no type "${T}"`
      : SelectionErrors<Subs, On>
    : never;

type DefinitionErrors<D> = D extends { operation: infer Op; selectionSet: { selections: infer Subs } }
  ? SelectionErrors<Subs, RootType<`${Op & string}`>>
  : D extends { typeCondition: { name: { value: infer T extends string } }; selectionSet: { selections: infer Subs } }
    ? T extends keyof Types
      ? SelectionErrors<Subs, T>
      : `there is no type "${T}"`
    : never;

/** What is wrong with a document's selections: a union of sentences, never when nothing is. */
export type DocumentErrors<In extends string> =
  parseDocument<In> extends { definitions: readonly (infer D)[] } ? DefinitionErrors<D> : never;

/**
 * `unknown` when every field a document selects exists on its type in tai42's schema;
 * otherwise a type no string is assignable to, naming the problems. gql.tada types an
 * unknown field as `unknown` (its editor plugin reports it); this makes it a compile error.
 */
export type CheckDocument<In extends string> = [DocumentErrors<In>] extends [never]
  ? unknown
  : { "GraphQL document error": DocumentErrors<In> };
