import SchemaBuilder from "@pothos/core";
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from "graphql-scalars";
import type { GraphQLContext } from "./context.ts";

/** Plugins and scalars only; every type lives in its domain file. */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
    DateTime: { Input: Date; Output: Date | string };
  };
  DefaultFieldNullability: false;
}>({ defaultFieldNullability: false });

builder.addScalarType("JSON", JSONResolver);
builder.addScalarType("JSONObject", JSONObjectResolver);
builder.addScalarType("DateTime", DateTimeResolver);
builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
