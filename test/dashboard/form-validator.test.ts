import type { RJSFSchema } from "@rjsf/utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FormValidator } from "../../src/dashboard/forms/validator.ts";

const validator = new FormValidator();
const check = (schema: RJSFSchema, data: unknown) => validator.validateFormData(data, schema);
const brief = (schema: RJSFSchema, data: unknown) =>
  check(schema, data).errors.map(({ property, name, message }) => ({ property, name, message }));

const person: RJSFSchema = {
  type: "object",
  required: ["name", "age"],
  properties: {
    name: { type: "string", title: "Name", minLength: 1 },
    age: { type: "integer", title: "Age", minimum: 0 },
    role: { enum: ["admin", "viewer"] },
  },
};

describe("the dashboard's form validator", () => {
  afterEach(() => vi.restoreAllMocks());

  it("should find no errors in data that fits", () => {
    expect(check(person, { name: "Ada", age: 36, role: "admin" })).toEqual({ errors: [], errorSchema: {} });
  });

  it("should name a missing required property as rjsf does, by its title in the message, a cleared field counting as missing", () => {
    const { errors, errorSchema } = check(person, { name: "Ada", age: undefined });
    expect(errors).toEqual([
      {
        name: "required",
        property: "age",
        message: "must have required property 'Age'",
        params: { missingProperty: "age" },
        stack: "must have required property 'Age'",
        schemaPath: "#/required",
        title: "Age",
      },
    ]);
    expect(errorSchema).toEqual({ age: { __errors: ["must have required property 'Age'"] } });
  });

  it("should say a wrong type, a value out of range and a value outside its enum in ajv's words, under the field's title", () => {
    const { errors } = check(person, { name: "", age: -1.5, role: "root" });
    expect(
      errors.map(({ property, name, message, params, stack }) => ({ property, name, message, params, stack })),
    ).toEqual([
      {
        property: ".name",
        name: "minLength",
        message: "must NOT have fewer than 1 characters",
        params: { limit: 1 },
        stack: "'Name' must NOT have fewer than 1 characters",
      },
      {
        property: ".age",
        name: "type",
        message: "must be integer",
        params: { type: "integer" },
        stack: "'Age' must be integer",
      },
      {
        property: ".age",
        name: "minimum",
        message: "must be >= 0",
        params: { comparison: ">=", limit: 0 },
        stack: "'Age' must be >= 0",
      },
      {
        property: ".role",
        name: "enum",
        message: "must be equal to one of the allowed values",
        params: { allowedValues: ["admin", "viewer"] },
        stack: ".role must be equal to one of the allowed values",
      },
    ]);
    expect(brief({ type: ["string", "null"] }, 3)).toEqual([
      { property: "", name: "type", message: "must be string,null" },
    ]);
  });

  it("should check the formats it knows (email, date-time, uri, uuid, and rjsf's color and data-url) and let an unknown format through", () => {
    const formats = {
      type: "object",
      properties: Object.fromEntries(
        ["email", "date-time", "uri", "uuid", "color", "data-url", "x-unknown"].map((f) => [
          f,
          { type: "string", format: f },
        ]),
      ),
    } as RJSFSchema;
    const good = {
      email: "ada@example.com",
      "date-time": "2024-05-01T12:00:00Z",
      uri: "https://example.com/a",
      uuid: "3f1c7b52-7b1e-4e4e-9d2e-0c9f4f1b2a3c",
      color: "#ff0000",
      "data-url": "data:text/plain;base64,aGk=",
      "x-unknown": "anything",
    };
    expect(check(formats, good).errors).toEqual([]);
    const bad = {
      email: "ada",
      "date-time": "yesterday",
      uri: "not a uri",
      uuid: "123",
      color: "not-a-colour",
      "data-url": "hello",
      "x-unknown": "anything",
    };
    expect(brief(formats, bad)).toEqual(
      ["email", "date-time", "uri", "uuid", "color", "data-url"].map((f) => ({
        property: `.${f}`,
        name: "format",
        message: `must match format "${f}"`,
      })),
    );
  });

  it("should map errors deep in objects and arrays to rjsf's property paths and its error schema", () => {
    const schema: RJSFSchema = {
      type: "object",
      properties: {
        order: {
          type: "object",
          required: ["lines"],
          properties: {
            lines: {
              type: "array",
              minItems: 1,
              items: {
                type: "object",
                required: ["sku"],
                properties: { sku: { type: "string", pattern: "^[A-Z]+$" }, qty: { type: "number", multipleOf: 0.5 } },
              },
            },
          },
        },
      },
    };
    const { errors, errorSchema } = check(schema, { order: { lines: [{ sku: "abc", qty: 0.3 }, { qty: 1 }] } });
    expect(errors.map(({ property, message }) => ({ property, message }))).toEqual([
      { property: ".order.lines.0.sku", message: 'must match pattern "^[A-Z]+$"' },
      { property: ".order.lines.0.qty", message: "must be multiple of 0.5" },
      { property: ".order.lines.1.sku", message: "must have required property 'sku'" },
    ]);
    expect(errorSchema).toEqual({
      order: {
        lines: {
          0: { sku: { __errors: ['must match pattern "^[A-Z]+$"'] }, qty: { __errors: ["must be multiple of 0.5"] } },
          1: { sku: { __errors: ["must have required property 'sku'"] } },
        },
      },
    });
    expect(brief(schema, { order: {} })).toEqual([
      { property: ".order.lines", name: "required", message: "must have required property 'lines'" },
    ]);
    expect(brief(schema, { order: { lines: [] } })).toEqual([
      { property: ".order.lines", name: "minItems", message: "must NOT have fewer than 1 items" },
    ]);
  });

  it("should follow the schema's own $refs, as zod's JSON Schemas use them for shared definitions", () => {
    const schema: RJSFSchema = {
      type: "object",
      properties: { at: { $ref: "#/$defs/point" } },
      $defs: { point: { type: "object", required: ["x"], properties: { x: { type: "number", maximum: 10 } } } },
    };
    expect(brief(schema, { at: { x: 11 } })).toEqual([
      { property: ".at.x", name: "maximum", message: "must be <= 10" },
    ]);
    expect(check(schema, { at: { x: 1 } }).errors).toEqual([]);
  });

  it("should report an extra property once when additionalProperties is false, and a failed anyOf once per message", () => {
    const closed: RJSFSchema = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
    expect(check(closed, { a: "x", b: 1 }).errors).toMatchObject([
      {
        name: "additionalProperties",
        property: "",
        message: "must NOT have additional properties",
        params: { additionalProperty: "b" },
      },
    ]);
    const either: RJSFSchema = { anyOf: [{ type: "string" }, { type: "string", minLength: 2 }] };
    expect(brief(either, 5)).toEqual([
      { property: "", name: "anyOf", message: "must match a schema in anyOf" },
      { property: "", name: "type", message: "must be string" },
    ]);
  });

  it("should hand the errors to transformErrors, then add what customValidate finds on data with every field present", () => {
    const result = new FormValidator<{ name?: string; age?: number }>().validateFormData(
      { name: "Ada" },
      person,
      (data, errors) => {
        expect(data).toHaveProperty("age", undefined);
        errors.name?.addError("is taken");
        return errors;
      },
      (errors) => errors.map((e) => ({ ...e, message: `(${e.message})` })),
    );
    expect(result.errors.map((e) => e.message ?? e.stack)).toEqual(["(must have required property 'Age')", "is taken"]);
    expect(result.errorSchema).toMatchObject({
      age: { __errors: ["(must have required property 'Age')"] },
      name: { __errors: ["is taken"] },
    });
  });

  it("should report a schema it cannot use as a validation error, not throw", () => {
    const { errors, errorSchema } = check({ $ref: "#/$defs/missing" }, 1);
    expect(errors).toEqual([{ stack: expect.stringContaining("Unresolved $ref") }]);
    expect((errorSchema as Record<string, { __errors?: string[] }>).$schema.__errors?.[0]).toContain("Unresolved $ref");
    expect(validator.rawValidation({ type: "string" }, "ok")).toEqual({ errors: undefined });
  });

  it("should answer isValid for a subschema whose $refs point into the root schema", () => {
    const root: RJSFSchema = {
      $defs: { positive: { type: "integer", minimum: 1 } },
      oneOf: [{ $ref: "#/$defs/positive" }, { type: "string" }],
    };
    const branch: RJSFSchema = { type: "object", properties: { n: { $ref: "#/$defs/positive" } } };
    expect(validator.isValid(branch, { n: 3 }, root)).toBe(true);
    expect(validator.isValid(branch, { n: 0 }, root)).toBe(false);
    expect(validator.isValid({ $ref: "#/$defs/positive" }, 2, root)).toBe(true);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(validator.isValid({ $ref: "#/$defs/nowhere" }, 2, root)).toBe(false);
    expect(warn).toHaveBeenCalledOnce();
  });

  it("should leave the form's schema objects as they were, and answer alike when asked again", () => {
    const schema: RJSFSchema = {
      type: "object",
      properties: { at: { $ref: "#/$defs/p" } },
      $defs: { p: { type: "number" } },
    };
    const before = JSON.stringify(schema);
    expect(brief(schema, { at: "x" })).toEqual(brief(schema, { at: "x" }));
    expect(validator.isValid(schema.properties!.at as RJSFSchema, 1, schema)).toBe(true);
    expect(validator.isValid(schema.properties!.at as RJSFSchema, "x", schema)).toBe(false);
    expect(Object.getOwnPropertyNames(schema.properties!.at)).toEqual(["$ref"]);
    expect(JSON.stringify(schema)).toBe(before);
  });
});
