import type { Caller } from "../auth/roles.ts";
import { requireAdmin } from "../auth/ownership.ts";
import type { Db } from "../db/client.ts";
import { unstorableIssues } from "../db/storable.ts";
import { ApiError, type Issue } from "../errors.ts";
import { writeSurface } from "../registry/surface-version.ts";
import { schemaProblems, type JsonSchema } from "../tools/json-schema.ts";
import { renderJsonTemplate } from "./json-template.ts";

/**
 * A stored response format: a JSON Schema written as templated text, named by id. A run
 * that names it renders it with its variables and parses it to its schema at the point
 * of use (docs/agent-stream.md §9.4).
 */
export interface ResponseFormat {
  name: string;
  description: string;
  template: string;
  updatedAt: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const PLACEHOLDER = /\{\{\s*[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*\s*\}\}/g;

/** Stored response formats: anyone may read them; only an ADMIN writes them. */
export class ResponseFormatStore {
  constructor(private readonly db: Db) {}

  async list(): Promise<ResponseFormat[]> {
    return (await this.db.responseFormat.findMany({ orderBy: { name: "asc" } })).map(toFormat);
  }

  /**
   * The schema `name` renders to with `vars`. An unknown name, a placeholder without a
   * value, text that is not JSON, or JSON that is not a JSON Schema is an issue at `path`.
   */
  async resolve(
    name: string,
    vars: Record<string, unknown>,
    path: string,
    issues: Issue[],
  ): Promise<JsonSchema | null> {
    const found = await this.render(name, vars, path);
    if (Array.isArray(found)) {
      issues.push(...found);
      return null;
    }
    return found.schema;
  }

  private async render(
    name: string,
    vars: Record<string, unknown>,
    path: string,
  ): Promise<{ schema: JsonSchema } | Issue[]> {
    const row = await this.db.responseFormat.findUnique({ where: { name } });
    if (!row) return [{ path, message: `no stored response format named "${name}"` }];
    const rendered = renderJsonTemplate(row.template, vars, path);
    if (rendered.issues.length) return rendered.issues;
    let schema: unknown;
    try {
      schema = JSON.parse(rendered.text);
    } catch {
      return [{ path, message: `the stored response format "${name}" does not render to JSON with these variables` }];
    }
    const problems = schemaProblems(schema, path);
    return problems.length ? problems : { schema: schema as JsonSchema };
  }

  /** Creates or replaces a format. Its text must be JSON once every placeholder is filled. */
  async put(input: { name: string; description: string; template: string }, caller: Caller): Promise<ResponseFormat> {
    requireAdmin(caller, "write response formats");
    const issues: Issue[] = [];
    if (!NAME.test(input.name)) issues.push({ path: "/name", message: "must match ^[A-Za-z0-9_.-]{1,64}$" });
    if (!input.description.trim()) issues.push({ path: "/description", message: "must not be empty" });
    issues.push(...templateIssues(input.template));
    issues.push(
      ...unstorableIssues(input.description, "/description"),
      ...unstorableIssues(input.template, "/template"),
    );
    if (issues.length)
      throw ApiError.badInput(
        `invalid response format "${input.name}": ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
        issues,
      );
    const row = await writeSurface(this.db, (tx) =>
      tx.responseFormat.upsert({
        where: { name: input.name },
        create: input,
        update: { description: input.description, template: input.template },
      }),
    );
    return toFormat(row);
  }

  async delete(name: string, caller: Caller): Promise<boolean> {
    requireAdmin(caller, "delete response formats");
    await writeSurface(this.db, async (tx) => {
      const { count } = await tx.responseFormat.deleteMany({ where: { name } });
      if (!count) throw new ApiError("NOT_FOUND", `no response format named "${name}"`);
    });
    return true;
  }
}

/**
 * What can be checked before the variables are known: the text is JSON when each
 * placeholder stands for a value, and, without placeholders, a JSON Schema object.
 */
function templateIssues(template: string): Issue[] {
  const placeholders = PLACEHOLDER.test(template);
  PLACEHOLDER.lastIndex = 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(template.replace(PLACEHOLDER, "0"));
  } catch {
    return [
      {
        path: "/template",
        message: "must be a JSON Schema as JSON text; a {{name}} placeholder may stand for a value or inside a string",
      },
    ];
  }
  return placeholders ? [] : schemaProblems(parsed, "/template");
}

function toFormat(row: { name: string; description: string; template: string; updatedAt: Date }): ResponseFormat {
  return {
    name: row.name,
    description: row.description,
    template: row.template,
    updatedAt: row.updatedAt.toISOString(),
  };
}
