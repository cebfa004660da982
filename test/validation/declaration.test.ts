import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DefinitionError, isDefinitionError } from "../../src/definition-error.ts";
import { declarationIssues, parseDeclaration, refuse, zodIssues } from "../../src/validation/declaration.ts";

const Point = z.strictObject(
  { x: z.number({ error: "must be a number" }), tags: z.array(z.string({ error: "must be a string" })).optional() },
  { error: "is not a field" },
);

describe("zodIssues: zod errors as {path, message} issues", () => {
  it("should give JSON-pointer paths, the root as the empty string", () => {
    expect(zodIssues(z.number({ error: "must be a number" }).safeParse("x").error!)).toEqual([
      { path: "", message: "must be a number" },
    ]);
    expect(zodIssues(Point.safeParse({ x: 1, tags: ["a", 2] }).error!)).toEqual([
      { path: "/tags/1", message: "must be a string" },
    ]);
  });

  it("should escape ~ and / in a key as JSON pointer does", () => {
    const schema = z.record(z.string(), z.number({ error: "must be a number" }));
    expect(zodIssues(schema.safeParse({ "a/b~c": "x" }).error!)).toEqual([
      { path: "/a~1b~0c", message: "must be a number" },
    ]);
  });

  it("should name each unknown key at its own path", () => {
    expect(zodIssues(Point.safeParse({ x: 1, y: 2, z: 3 }).error!)).toEqual([
      { path: "/y", message: "is not a field" },
      { path: "/z", message: "is not a field" },
    ]);
  });

  it("should report inside the union branch the value's type chose", () => {
    const schema = z.union([z.boolean(), z.array(z.enum(["A", "B"], { error: "must be A or B" }))], {
      error: "must be a boolean or a list",
    });
    expect(zodIssues(schema.safeParse(["A", "C"]).error!)).toEqual([{ path: "/1", message: "must be A or B" }]);
    expect(zodIssues(schema.safeParse("x").error!)).toEqual([{ path: "", message: "must be a boolean or a list" }]);
  });

  it("should put the paths under a base", () => {
    expect(zodIssues(Point.safeParse({ x: "1" }).error!, "/point")).toEqual([
      { path: "/point/x", message: "must be a number" },
    ]);
  });
});

describe("parseDeclaration: the value, or one DefinitionError with every issue", () => {
  it("should return the parsed value when the declaration fits", () => {
    expect(parseDeclaration(Point, { x: 2 }, "point.shape")).toEqual({ x: 2 });
    expect(declarationIssues(Point, { x: 2 })).toEqual([]);
  });

  it("should throw a DefinitionError of the rule, naming the subject and every issue", () => {
    let error: unknown;
    try {
      parseDeclaration(Point, { x: "no", w: 1 }, "point.shape", { subject: "p1" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DefinitionError);
    const e = error as DefinitionError;
    expect(e.name).toBe("DefinitionError");
    expect(e.rule).toBe("point.shape");
    expect(e.subject).toBe("p1");
    expect(e.issues).toEqual([
      { path: "/x", message: "must be a number" },
      { path: "/w", message: "is not a field" },
    ]);
    expect(e.message).toBe("p1: /x: must be a number; /w: is not a field");
  });

  it("should word the message as the declaration's refusal says", () => {
    const e = refuse("point.shape", [{ path: "/x", message: "must be a number" }], {
      describe: (issues) => `bad point (${issues.length})`,
    });
    expect(e.message).toBe("bad point (1)");
    expect(e.issues).toEqual([{ path: "/x", message: "must be a number" }]);
  });
});

describe("DefinitionError", () => {
  it("should carry its message as the one root issue when given no issues", () => {
    expect(new DefinitionError("module.load", "failed").issues).toEqual([{ path: "", message: "failed" }]);
  });

  it("should tell a refusal by its rule or by its declaration's prefix", () => {
    const e = new DefinitionError("tool.wire-safe-name", "x");
    expect(isDefinitionError(e)).toBe(true);
    expect(isDefinitionError(e, "tool.wire-safe-name")).toBe(true);
    expect(isDefinitionError(e, "tool.")).toBe(true);
    expect(isDefinitionError(e, "agent.")).toBe(false);
    expect(isDefinitionError(new Error("x"))).toBe(false);
  });
});
