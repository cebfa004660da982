import type { Caller } from "../auth/roles.ts";
import { requireAdmin } from "../auth/ownership.ts";
import type { Db } from "../db/client.ts";
import { unstorableIssues } from "../db/storable.ts";
import { ApiError, type Issue } from "../errors.ts";
import { writeSurface } from "../registry/surface-version.ts";

/** A stored, named instruction snippet an agent run can load by name. */
export interface Skill {
  name: string;
  description: string;
  instructions: string;
  updatedAt: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Stored skills: anyone may read them; only an ADMIN writes them. */
export class SkillStore {
  constructor(private readonly db: Db) {}

  async list(): Promise<Skill[]> {
    return (await this.db.skill.findMany({ orderBy: { name: "asc" } })).map(toSkill);
  }

  /** The named skills, in the order asked; an unknown name is BAD_USER_INPUT naming it. */
  async resolve(names: string[], path = "/skills"): Promise<Skill[]> {
    if (!names.length) return [];
    const rows = new Map(
      (await this.db.skill.findMany({ where: { name: { in: names } } })).map((r) => [r.name, toSkill(r)]),
    );
    const issues: Issue[] = names.flatMap((n, i) =>
      rows.has(n) ? [] : [{ path: `${path}/${i}`, message: `no stored skill named "${n}"` }],
    );
    if (issues.length)
      throw ApiError.badInput(
        `unknown skill${issues.length > 1 ? "s" : ""}: ${issues.map((i) => i.message).join("; ")}`,
        issues,
      );
    return names.map((n) => rows.get(n)!);
  }

  async put(input: { name: string; description: string; instructions: string }, caller: Caller): Promise<Skill> {
    requireAdmin(caller, "write skills");
    const issues: Issue[] = [];
    if (!NAME.test(input.name)) issues.push({ path: "/name", message: "must match ^[A-Za-z0-9_.-]{1,64}$" });
    if (!input.description.trim()) issues.push({ path: "/description", message: "must not be empty" });
    if (!input.instructions.trim()) issues.push({ path: "/instructions", message: "must not be empty" });
    issues.push(
      ...unstorableIssues(input.description, "/description"),
      ...unstorableIssues(input.instructions, "/instructions"),
    );
    if (issues.length) throw ApiError.badInput(`invalid skill "${input.name}"`, issues);
    // A configuration write: the stored surface version moves with it (registry/surface-version.ts).
    const row = await writeSurface(this.db, (tx) =>
      tx.skill.upsert({
        where: { name: input.name },
        create: input,
        update: { description: input.description, instructions: input.instructions },
      }),
    );
    return toSkill(row);
  }

  async delete(name: string, caller: Caller): Promise<boolean> {
    requireAdmin(caller, "delete skills");
    await writeSurface(this.db, async (tx) => {
      const { count } = await tx.skill.deleteMany({ where: { name } });
      if (!count) throw new ApiError("NOT_FOUND", `no skill named "${name}"`);
    });
    return true;
  }
}

function toSkill(row: { name: string; description: string; instructions: string; updatedAt: Date }): Skill {
  return {
    name: row.name,
    description: row.description,
    instructions: row.instructions,
    updatedAt: row.updatedAt.toISOString(),
  };
}
