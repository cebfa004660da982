import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLNamedType,
} from "graphql";
import { describe, expect, it } from "vitest";
import { schema } from "../../src/graphql/schema.ts";

/** Every schema element that lacks a description, named by its coordinate (Type.field(arg:)). */
function undescribed(): string[] {
  const missing: string[] = [];
  const need = (coordinate: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(coordinate);
  };
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean).map((t) => t!.name),
  );
  for (const type of Object.values(schema.getTypeMap()) as GraphQLNamedType[]) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    if (!roots.has(type.name)) need(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        need(`${type.name}.${field.name}`, field.description);
        for (const arg of field.args) need(`${type.name}.${field.name}(${arg.name}:)`, arg.description);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) need(`${type.name}.${field.name}`, field.description);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) need(`${type.name}.${value.name}`, value.description);
    }
  }
  return missing.sort();
}

describe("schema descriptions", () => {
  it("should describe every type, field, argument, input field, enum and enum value, naming each one that lacks a description", () => {
    expect(
      undescribed(),
      "add a description to each of these (they show in GraphiQL, typed clients and schema.graphql)",
    ).toEqual([]);
  });
});
