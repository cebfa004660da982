import type { GraphQLFieldResolver, GraphQLSchema } from "graphql";
import { ApiError } from "../errors.ts";
import { tooDeepAt, tooDeepMessage } from "../tools/json-depth.ts";

/**
 * Root fields whose too-deep input is refused by the dispatch chokepoint instead, so the
 * refusal is recorded as a FAILED `INVALID_INPUT` run like any other bad input.
 */
const CHOKEPOINT_FIELDS = new Set(["dispatch"]);

/**
 * Refuses arguments nested deeper than the JSON depth limit with `BAD_USER_INPUT`, on every
 * root field (every JSON argument is taken by one), before the resolver — and anything
 * recursive behind it — runs.
 */
export function guardJsonDepth(schema: GraphQLSchema): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      if (!field.args.length || CHOKEPOINT_FIELDS.has(field.name)) continue;
      field.resolve &&= guarded(field.resolve);
      field.subscribe &&= guarded(field.subscribe);
    }
  }
  return schema;
}

function guarded(resolve: GraphQLFieldResolver<unknown, unknown>): GraphQLFieldResolver<unknown, unknown> {
  return (source, args, context, info) => {
    for (const [name, value] of Object.entries(args)) {
      const at = tooDeepAt(value);
      if (at !== null)
        throw ApiError.badInput(`${name}: ${tooDeepMessage(at)}`, [
          { path: `/${name}${at === "/" ? "" : at}`, message: tooDeepMessage(at) },
        ]);
    }
    return resolve(source, args, context, info);
  };
}
