import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import type { Issue } from "../../src/errors.ts";
import type { RunRecord } from "../../src/dispatch/run-record.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { compileSchema, validate } from "../../src/tools/json-schema.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const issuesOf = (run: RunRecord) => (run.details as { issues: Issue[] }).issues;

const PROFILE = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1 },
    age: { type: "integer", minimum: 0 },
    role: { enum: ["reader", "writer"] },
    address: {
      type: "object",
      properties: { city: { type: "string" }, zip: { type: "string", pattern: "^\\d{5}$" } },
      required: ["city", "zip"],
      additionalProperties: false,
    },
    tags: { type: "array", items: { type: "string" }, maxItems: 2 },
  },
  required: ["name", "address"],
  additionalProperties: false,
};

describe("argument validation at the chokepoint", () => {
  let rt: TestRuntime;
  const received: unknown[] = [];

  beforeAll(async () => {
    const app = new App();
    app.tool(
      defineTool({
        name: "profile",
        description: "Stores a profile.",
        parameters: PROFILE,
        execute: (input) => void received.push(input),
      }),
    );
    app.tool(
      {
        name: "order",
        description: "Places an order.",
        input: z.object({
          user: z.object({ email: z.string().email(), age: z.number().int() }),
          items: z.array(z.object({ id: z.string(), qty: z.number().min(1).default(1) })).min(1),
          site: z.string().url().optional(),
        }),
      },
      (input) => void received.push(input),
    );
    app.tool(
      {
        name: "range",
        description: "A range whose bounds zod checks together.",
        input: z
          .object({ low: z.number(), high: z.number() })
          .refine((v) => v.low < v.high, { message: "must be below high", path: ["low"] }),
      },
      (input) => void received.push(input),
    );
    rt = await testRuntime({ app, config: { demo: false } });
  });
  afterAll(() => rt.dispose());

  const run = (tool: string, input: unknown) => rt.dispatcher.run({ tool, input, caller: as("USER"), door: "runtime" });

  describe("a JSON Schema tool (ajv, allErrors)", () => {
    it("should list every problem with its path, nested ones and missing required fields included", async () => {
      received.length = 0;
      const done = await run("profile", {
        age: -1.5,
        role: "admin",
        address: { zip: "abc", extra: 1 },
        tags: ["a", 2, "c"],
        bogus: true,
      });
      expect(done).toMatchObject({ status: "FAILED", isError: true, errorKind: "INVALID_INPUT" });
      const expected: Issue[] = [
        { path: "/name", message: "is required" },
        { path: "/bogus", message: "is not an allowed property" },
        { path: "/age", message: "must be integer" },
        { path: "/age", message: "must be >= 0" },
        { path: "/role", message: 'must be one of ["reader","writer"]' },
        { path: "/address/city", message: "is required" },
        { path: "/address/extra", message: "is not an allowed property" },
        { path: "/address/zip", message: 'must match pattern "^\\d{5}$"' },
        { path: "/tags/1", message: "must be string" },
        { path: "/tags", message: "must NOT have more than 2 items" },
      ];
      expect(issuesOf(done)).toEqual(expect.arrayContaining(expected));
      expect(issuesOf(done)).toHaveLength(expected.length);
      expect(received).toEqual([]);
    });

    it("should name every issue in the error message", async () => {
      const done = await run("profile", { address: { city: 1, zip: "12345" } });
      expect(done.errorMessage).toContain('"profile"');
      expect(done.errorMessage).toContain("/name: is required");
      expect(done.errorMessage).toContain("/address/city: must be string");
    });

    it("should store the issues on the run for audit", async () => {
      const done = await run("profile", { name: "", address: {} });
      const stored = (await rt.runs.get(done.id))!;
      expect(stored).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
      expect(issuesOf(stored)).toEqual(
        expect.arrayContaining([
          { path: "/name", message: "must NOT have fewer than 1 characters" },
          { path: "/address/city", message: "is required" },
          { path: "/address/zip", message: "is required" },
        ]),
      );
      expect(stored.attempts).toEqual([]);
    });

    it.each([
      ["an array", [1, 2]],
      ["a string", "hello"],
      ["null", null],
    ])("should refuse input that is %s as a root issue", async (_label, input) => {
      const done = await run("profile", input);
      expect(done).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
      expect(issuesOf(done)).toEqual([{ path: "", message: "must be an object" }]);
    });

    it("should run the body with valid input, unchanged", async () => {
      received.length = 0;
      const input = { name: "Ada", age: 36, role: "writer", address: { city: "London", zip: "12345" }, tags: ["math"] };
      expect(await run("profile", input)).toMatchObject({ status: "SUCCEEDED" });
      expect(received).toEqual([input]);
    });
  });

  describe("a zod tool", () => {
    it("should list every problem from the generated JSON Schema, nested paths included", async () => {
      received.length = 0;
      const done = await run("order", {
        user: { email: "not-an-email", age: 1.5 },
        items: [{ id: 7, qty: 0 }],
        site: "nope",
        extra: 1,
      });
      expect(done).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
      const expected = [
        { path: "/extra", message: "is not an allowed property" },
        { path: "/user/email", message: 'must match format "email"' },
        // zod's email() also emits its own pattern, which ajv reports as a second issue.
        { path: "/user/email", message: expect.stringMatching(/^must match pattern "/) },
        { path: "/user/age", message: "must be integer" },
        { path: "/items/0/id", message: "must be string" },
        { path: "/items/0/qty", message: "must be >= 1" },
        { path: "/site", message: 'must match format "uri"' },
      ];
      expect(issuesOf(done)).toEqual(expect.arrayContaining(expected));
      expect(issuesOf(done)).toHaveLength(expected.length);
      expect(received).toEqual([]);
    });

    it("should name missing required fields at every depth", async () => {
      const done = await run("order", { user: {}, items: [{}] });
      expect(issuesOf(done)).toEqual(
        expect.arrayContaining([
          { path: "/user/email", message: "is required" },
          { path: "/user/age", message: "is required" },
          { path: "/items/0/id", message: "is required" },
        ]),
      );
      expect(issuesOf(done)).toHaveLength(3);
    });

    it("should refuse an empty list below its minimum", async () => {
      const done = await run("order", { user: { email: "a@example.com", age: 3 }, items: [] });
      expect(issuesOf(done)).toEqual([{ path: "/items", message: "must NOT have fewer than 1 items" }]);
    });

    it("should report a zod-only rule (a refinement) with its path", async () => {
      received.length = 0;
      const done = await run("range", { low: 5, high: 1 });
      expect(done).toMatchObject({ status: "FAILED", errorKind: "INVALID_INPUT" });
      expect(issuesOf(done)).toEqual([{ path: "/low", message: "must be below high" }]);
      expect(received).toEqual([]);
    });

    it("should hand the body zod's parsed input, defaults applied", async () => {
      received.length = 0;
      const done = await run("order", { user: { email: "a@example.com", age: 3 }, items: [{ id: "x" }] });
      expect(done.status).toBe("SUCCEEDED");
      expect(received).toEqual([{ user: { email: "a@example.com", age: 3 }, items: [{ id: "x", qty: 1 }] }]);
    });
  });
});

describe("the validator", () => {
  it("should compile a schema once and reuse it", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    expect(compileSchema(schema)).toBe(compileSchema(schema));
  });

  it("should report all errors, not just the first", () => {
    const issues = validate(
      { type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["c"] },
      { a: 1, b: "x" },
    );
    expect(issues).toEqual([
      { path: "/c", message: "is required" },
      { path: "/a", message: "must be string" },
      { path: "/b", message: "must be number" },
    ]);
  });

  it("should return no issues for a valid value", () => {
    expect(validate({ type: "object", properties: { a: { type: "string" } } }, { a: "ok" })).toEqual([]);
  });
});
