import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/** Rejects with BAD_USER_INPUT; resolves with the issue paths. */
async function refusedAt(p: Promise<unknown>): Promise<string[]> {
  const e = await p.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e as { code: string; issues: { path: string }[] },
  );
  expect(e.code).toBe("BAD_USER_INPUT");
  return e.issues.map((i) => i.path);
}

let rt: TestRuntime;
beforeEach(async () => {
  rt = await testRuntime();
});
afterEach(() => rt.dispose());

describe("stored skills", () => {
  const skill = (name: string, instructions = `Do ${name} well.`) => ({
    name,
    description: `The ${name} skill.`,
    instructions,
  });

  it("should store, replace and list skills by name", async () => {
    await rt.agents.skills.put(skill("writing"), as("ADMIN"));
    await rt.agents.skills.put(skill("analysis"), as("ADMIN"));
    const replaced = await rt.agents.skills.put(skill("writing", "Write tersely."), as("ADMIN"));
    expect(replaced).toMatchObject({ name: "writing", instructions: "Write tersely." });
    expect(Number.isNaN(Date.parse(replaced.updatedAt))).toBe(false);
    expect((await rt.agents.skills.list()).map((s) => `${s.name}: ${s.instructions}`)).toEqual([
      "analysis: Do analysis well.",
      "writing: Write tersely.",
    ]);
  });

  it("should resolve names in the order asked, and nothing for no names", async () => {
    await rt.agents.skills.put(skill("a"), as("ADMIN"));
    await rt.agents.skills.put(skill("b"), as("ADMIN"));
    expect((await rt.agents.skills.resolve(["b", "a"])).map((s) => s.name)).toEqual(["b", "a"]);
    expect(await rt.agents.skills.resolve([])).toEqual([]);
  });

  it("should refuse unknown names, each at its index under the path given", async () => {
    await rt.agents.skills.put(skill("a"), as("ADMIN"));
    expect(await refusedAt(rt.agents.skills.resolve(["x", "a", "y"], "/subagents/0/skills"))).toEqual([
      "/subagents/0/skills/0",
      "/subagents/0/skills/2",
    ]);
  });

  it("should refuse a bad name, an empty description or empty instructions, all at once", async () => {
    expect(
      await refusedAt(rt.agents.skills.put({ name: "has space", description: " ", instructions: "" }, as("ADMIN"))),
    ).toEqual(["/name", "/description", "/instructions"]);
    expect(await rt.agents.skills.list()).toEqual([]);
  });

  it("should let only an ADMIN write or delete a skill", async () => {
    for (const role of ["USER", "READER"] as const) {
      await expect(rt.agents.skills.put(skill("a"), as(role))).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    await rt.agents.skills.put(skill("a"), as("ADMIN"));
    await expect(rt.agents.skills.delete("a", as("USER"))).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await rt.agents.skills.list()).toHaveLength(1);
  });

  it("should delete a skill, and answer NOT_FOUND for one that is not there", async () => {
    await rt.agents.skills.put(skill("a"), as("ADMIN"));
    expect(await rt.agents.skills.delete("a", as("ADMIN"))).toBe(true);
    expect(await rt.agents.skills.list()).toEqual([]);
    await expect(rt.agents.skills.delete("a", as("ADMIN"))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("stored response formats", () => {
  const formats = () => rt.agents.responseFormats;
  const put = (name: string, template: string) =>
    formats().put({ name, description: `The ${name} format.`, template }, as("ADMIN"));

  it("should store and list formats by name, keeping the template text as written", async () => {
    const template = '{"type":"object","properties":{"n":{"type":"integer","maximum":{{max}}}}}';
    await put("zeta", '{"type":"string"}');
    await put("alpha", template);
    const listed = await formats().list();
    expect(listed.map((f) => f.name)).toEqual(["alpha", "zeta"]);
    expect(listed[0].template).toBe(template);
  });

  it("should accept a template whose placeholders stand for values or sit inside strings", async () => {
    await put("ok", '{"type":"object","description":"About {{topic}}","properties":{"n":{"maximum":{{max}}}}}');
    const issues: { path: string; message: string }[] = [];
    expect(await formats().resolve("ok", { topic: "bees", max: 3 }, "/rf", issues)).toEqual({
      type: "object",
      description: "About bees",
      properties: { n: { maximum: 3 } },
    });
    expect(issues).toEqual([]);
  });

  it("should refuse a bad name and an empty description together", async () => {
    expect(await refusedAt(formats().put({ name: "", description: "  ", template: "{}" }, as("ADMIN")))).toEqual([
      "/name",
      "/description",
    ]);
  });

  it("should name, at the path of use, an unknown format, a missing variable, or variables that make it something else than a schema", async () => {
    await put("typed", '{"type":{{t}}}');
    const issues: { path: string; message: string }[] = [];
    expect(await formats().resolve("nope", {}, "/a", issues)).toBeNull();
    expect(await formats().resolve("typed", {}, "/b", issues)).toBeNull();
    expect(await formats().resolve("typed", { t: "not-a-type" }, "/c", issues)).toBeNull();
    expect([...new Set(issues.map((i) => i.path.slice(0, 2)))]).toEqual(["/a", "/b", "/c"]);
    expect(issues[0].message).toBe('no stored response format named "nope"');
    expect(issues[1].message).toContain("{{t}}");
  });
});
