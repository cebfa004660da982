import { existsSync, readdirSync, readFileSync } from "node:fs";
import { buildSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType, type GraphQLSchema } from "graphql";
import { describe, expect, it } from "vitest";

/**
 * Keeps docs/seed-conformance.md honest: every name a row cites as where a seed concept
 * lives must exist. The doc's "backtick convention" section defines the forms checked here.
 */

const root = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");

interface Row {
  id: string;
  seed: string;
  concept: string;
  where: string;
  status: string;
  line: number;
}

/** The table rows: `| SSS-NN | concept | where | status |` (a `\|` inside a cell is not a separator). */
function rowsOf(markdown: string): Row[] {
  const rows: Row[] = [];
  markdown.split("\n").forEach((text, i) => {
    if (!/^\|\s*\d{3}-\d{2}\s*\|/.test(text)) return;
    const cells = text
      .slice(1, text.trimEnd().endsWith("|") ? text.trimEnd().length - 1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (cells.length !== 4)
      throw new Error(`line ${i + 1}: a row has 4 cells (id, concept, where, status), found ${cells.length}`);
    const [id, concept, where, status] = cells;
    rows.push({ id, seed: id.slice(0, 3), concept, where, status, line: i + 1 });
  });
  return rows;
}

/** Rows issue 17 is still building: their names may not exist yet, so they are not checked. */
const isIssue17 = (row: Row) => /^issue 17\b/.test(row.status);

const ROOT_FILES = new Set(["schema.graphql", "package.json", "README.md"]);
const PATH = /^(src|test|docs|prisma|scripts|bin|bench)(\/[^\s]*)?$/;
const GRAPHQL = /^([A-Z]\w*)\.(\w+)(?:\(([\w, ]+)\))?$/;
const CLI = /^tai((?: [a-z][\w-]*)+)$/;
const EXPORT = /^(tai42(?:\/client|\/contrib)?):(\w+)$/;
const APP_METHOD = /^app\.(\w+)$/;
const MEMBER = /^([A-Z]\w*)#(\w+)(?:\(.*\))?$/;
const ENTRIES: Record<string, string> = {
  tai42: "src/index.ts",
  "tai42/client": "src/client/index.ts",
  "tai42/contrib": "src/extensions/contrib/index.ts",
};

type Kind = "path" | "graphql" | "cli" | "export" | "app" | "member";

/** What a checked name is, by the doc's convention; null for text that is not checked. */
function kindOf(name: string): Kind | null {
  if (ROOT_FILES.has(name) || PATH.test(name)) return "path";
  if (GRAPHQL.test(name)) return "graphql";
  if (CLI.test(name)) return "cli";
  if (EXPORT.test(name)) return "export";
  if (APP_METHOD.test(name)) return "app";
  if (MEMBER.test(name)) return "member";
  return null;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The commands the CLI registers (`.command("word")`) in src/cli. */
function cliCommands(): Set<string> {
  const dir = new URL("src/cli/", root);
  const words = readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .flatMap((f) => [...readFileSync(new URL(f, dir), "utf8").matchAll(/\.command\("([\w-]+)/g)].map((m) => m[1]));
  return new Set(words);
}

/** The text of every TypeScript file under src/, by path. */
function sources(): Map<string, string> {
  const dir = new URL("src/", root);
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter(
    (f) => /\.tsx?$/.test(f) && !f.startsWith("db/generated"),
  );
  return new Map(files.map((f) => [f, readFileSync(new URL(f, dir), "utf8")]));
}

/** Whether a class or interface `owner` declared under src/ declares `member` (a field, method or static). */
function declaresMember(owner: string, member: string): boolean {
  const decl = new RegExp(`\\b(?:class|interface)\\s+${escape(owner)}\\b`);
  const field = new RegExp(
    `^\\s*(?:(?:declare|static|readonly|abstract|async|override|public|protected)\\s+)*\\*?${escape(member)}\\s*[?!]?\\s*[:(<=]`,
    "m",
  );
  return [...src.values()].some((text) => decl.test(text) && field.test(text));
}

/** Why `name` does not hold, or null when it exists. */
function problemOf(name: string, schema: GraphQLSchema, commands: Set<string>): string | null {
  switch (kindOf(name)) {
    case "path":
      return existsSync(new URL(name, root)) ? null : `no file or folder ${name} in the repository`;
    case "graphql": {
      const [, typeName, fieldName, args] = GRAPHQL.exec(name)!;
      const type = schema.getType(typeName);
      if (!type) return `schema.graphql has no type ${typeName}`;
      if (isEnumType(type))
        return args === undefined && type.getValue(fieldName) ? null : `enum ${typeName} has no value ${fieldName}`;
      if (!isObjectType(type) && !isInterfaceType(type) && !isInputObjectType(type)) return `${typeName} has no fields`;
      const field = type.getFields()[fieldName];
      if (!field) return `${typeName} has no field ${fieldName}`;
      for (const arg of args?.split(",").map((a) => a.trim()) ?? []) {
        if (!("args" in field) || !field.args.some((a) => a.name === arg))
          return `${typeName}.${fieldName} has no argument ${arg}`;
      }
      return null;
    }
    case "cli": {
      const missing = CLI.exec(name)![1]
        .trim()
        .split(" ")
        .filter((w) => !commands.has(w));
      return missing.length ? `src/cli registers no command ${missing.join(", ")}` : null;
    }
    case "export": {
      const [, entry, exported] = EXPORT.exec(name)!;
      const text = read(ENTRIES[entry]);
      const re = new RegExp(
        `export\\s*(?:(?:type\\s*)?\\{[^}]*\\b${escape(exported)}\\b[^}]*\\}|(?:async\\s+)?(?:const|let|function|class|type|interface)\\s+${escape(exported)}\\b)`,
      );
      return re.test(text) ? null : `${ENTRIES[entry]} does not export ${exported}`;
    }
    case "member": {
      const [, owner, member] = MEMBER.exec(name)!;
      return declaresMember(owner, member) ? null : `no class or interface ${owner} under src/ declares ${member}`;
    }
    case "app": {
      const method = APP_METHOD.exec(name)![1];
      return new RegExp(`^\\s+${escape(method)}\\s*[<(]`, "m").test(read("src/app.ts"))
        ? null
        : `src/app.ts defines no method ${method}`;
    }
    default:
      return null;
  }
}

/** The backticked names of a cell. */
const namesOf = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\\\|/g, "|"));

const doc = read("docs/seed-conformance.md");
const rows = rowsOf(doc);
const schema = buildSchema(read("schema.graphql"));
const commands = cliCommands();
const src = sources();

describe("docs/seed-conformance.md: the conformance table stays honest", () => {
  describe("the table", () => {
    it("should list the concepts of all three seeds (an earlier review counted about 120)", () => {
      expect(rows.length).toBeGreaterThanOrEqual(120);
      expect(new Set(rows.map((r) => r.seed))).toEqual(new Set(["000", "001", "002"]));
    });

    it("should give every row a unique id", () => {
      const seen = new Set<string>();
      const repeated = rows.filter((r) => (seen.has(r.id) ? true : (seen.add(r.id), false))).map((r) => r.id);
      expect(repeated).toEqual([]);
    });

    it("should give every row a status that is faithful, a stated deviation with its reason, or issue 17", () => {
      const bad = rows
        .filter((r) => !/^(faithful|deviation: \S.{10,}|issue 17(: \S.*)?)$/.test(r.status))
        .map((r) => `${r.id} (line ${r.line}): ${r.status}`);
      expect(bad).toEqual([]);
    });

    it("should name the concept and where it lives in every row", () => {
      const bad = rows.filter((r) => r.concept.length < 3 || r.where.length < 3).map((r) => r.id);
      expect(bad).toEqual([]);
    });
  });

  describe("the checker", () => {
    it("should refuse a cited name that does not exist, for every checked form (the check is not vacuous)", () => {
      for (const name of [
        "src/no-such-file.ts",
        "Query.noSuchField",
        "NoSuchType.field",
        "Tier.NO_SUCH",
        "Subscription.agentStream(noSuchArg)",
        "tai tools no-such",
        "tai42:noSuchExport",
        "tai42/client:noSuchExport",
        "app.noSuchMethod",
        "Agent#noSuchMember",
        "NoSuchClass#run",
      ])
        expect(problemOf(name, schema, commands), name).not.toBeNull();
    });

    it("should accept a cited name of every checked form that exists", () => {
      for (const name of [
        "src/app.ts",
        "docs/",
        "schema.graphql",
        "Query.tools",
        "Subscription.agentStream(input, runId, afterSeq)",
        "Tier.FENCED",
        "AgentRunInput.threadId",
        "tai tools run",
        "tai42:app",
        "tai42/client:createTaiClient",
        "app.tool",
        "Agent#run(options, ctx)",
        "Agent#toolName",
        "ToolResult#details",
      ])
        expect(problemOf(name, schema, commands), name).toBeNull();
    });

    it("should not check the rows issue 17 is still building", () => {
      const row: Row = {
        id: "000-99",
        seed: "000",
        concept: "x",
        where: "`Query.notYet`",
        status: "issue 17: target",
        line: 0,
      };
      expect(isIssue17(row)).toBe(true);
      expect(isIssue17({ ...row, status: "faithful" })).toBe(false);
    });
  });

  describe("where each concept lives", () => {
    for (const row of rows.filter((r) => !isIssue17(r))) {
      it(`should cite only names that exist for ${row.id} (${row.concept.replace(/`/g, "").slice(0, 70)})`, () => {
        const checked = namesOf(row.where).filter((n) => kindOf(n) !== null);
        expect(
          checked.length,
          `${row.id} cites no checked name (a path, GraphQL field, CLI command, export, app method or member)`,
        ).toBeGreaterThan(0);
        expect(checked.map((n) => problemOf(n, schema, commands)).filter((p) => p !== null)).toEqual([]);
      });
    }
  });
});
