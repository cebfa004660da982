import { InvalidArgumentError, type Command } from "commander";
import type { KeyInfo, KeyOptions } from "../auth/keys.ts";
import type { Role } from "../auth/roles.ts";
import { parseJsonObject, parseRole, withStore } from "./cli-support.ts";

/**
 * `tai keys create|rate|revoke|list` (docs/security-model.md §1): the local operator's key management, straight on
 * the database (no key needed: access to the database is the authority).
 */

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `--expires`: a duration from now (`90s`, `15m`, `12h`, `30d`, `2w`) or an ISO 8601 date-time. */
export function parseExpiry(value: string, now = Date.now()): Date {
  const d = /^(\d+)([smhdw])$/.exec(value.trim());
  if (d) {
    const at = new Date(now + Number(d[1]) * UNITS[d[2]] * 1000);
    if (Number(d[1]) > 0 && !Number.isNaN(at.getTime())) return at;
  } else if (/^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))) return new Date(value);
  throw new InvalidArgumentError('must be a duration ("30d", "12h", "15m", "90s", "2w") or an ISO 8601 date-time');
}

/** `--tools a,b`: the names, trimmed. */
function parseTools(value: string): string[] {
  return value.split(",").map((t) => t.trim());
}

type CreateOpts = { role: Role; rate?: Record<string, unknown>; expires?: Date; tools?: string[]; manifest?: string };

function keyOptions(opts: CreateOpts): KeyOptions {
  if (opts.tools && opts.manifest) throw new InvalidArgumentError("give at most one of --tools and --manifest");
  const scope = opts.tools ? { tools: opts.tools } : opts.manifest !== undefined ? { manifest: opts.manifest } : null;
  return { ...(opts.expires ? { expiresAt: opts.expires } : {}), ...(scope ? { scope } : {}) };
}

/** One line of `tai keys list`. */
export function keyLine(k: KeyInfo, now = Date.now()): string {
  const state = k.revokedAt
    ? `revoked ${k.revokedAt}`
    : k.expiresAt && Date.parse(k.expiresAt) <= now
      ? `expired ${k.expiresAt}`
      : k.expiresAt
        ? `active, expires ${k.expiresAt}`
        : "active";
  const scope = !k.scope
    ? "scope: role"
    : "manifest" in k.scope
      ? `scope: manifest ${k.scope.manifest}`
      : `scope: tools ${k.scope.tools.join(",")}`;
  const used = k.lastUsedAt ? `last used ${k.lastUsedAt}` : "never used";
  return `${k.name.padEnd(24)} ${k.role.padEnd(7)} ${k.prefix}…  ${state}; ${used}; ${scope}\n`;
}

export function registerKeysCommands(program: Command): void {
  const keys = program.command("keys").description("manage API keys (local operator: needs access to the database)");
  keys
    .command("create")
    .argument("<name>", "key name")
    .requiredOption("--role <role>", "READER, USER or ADMIN", parseRole)
    .option(
      "--rate <json>",
      'its own rate over every dispatch, e.g. {"tokens":10,"intervalSeconds":1}',
      parseJsonObject,
    )
    .option(
      "--expires <when>",
      "when it stops being accepted: 30d, 12h, 15m, 90s, 2w, or an ISO date-time",
      (v: string) => parseExpiry(v),
    )
    .option("--tools <names>", "scope: only these tools (comma-separated names)", parseTools)
    .option("--manifest <name>", "scope: only the tools this manifest selects")
    .action(async (name: string, opts: CreateOpts) => {
      const options = keyOptions(opts);
      await withStore(async (s) => {
        const key = await (await s.keys()).create(name, opts.role, undefined, opts.rate as never, options);
        process.stdout.write(`${key}\n`);
        process.stderr.write(`created ${opts.role} key "${name}"; it is shown once and stored hashed\n`);
      });
    });
  keys
    .command("rate")
    .description("set a key's own rate over every dispatch it makes, or remove it (--none)")
    .argument("<name>", "key name")
    .option("--rate <json>", 'e.g. {"tokens":10,"intervalSeconds":1}', parseJsonObject)
    .option("--none", "remove its rate")
    .action(async (name: string, opts: { rate?: Record<string, unknown>; none?: boolean }) => {
      if (!opts.rate === !opts.none) throw new Error("give exactly one of --rate <json> and --none");
      await withStore(async (s) => {
        await (await s.keys()).setRate(name, (opts.rate ?? null) as never);
        process.stderr.write(opts.rate ? `set the rate of key "${name}"\n` : `removed the rate of key "${name}"\n`);
      });
    });
  keys
    .command("revoke")
    .argument("<name>", "key name")
    .action(async (name: string) => {
      await withStore(async (s) => {
        await (await s.keys()).revoke(name);
        process.stderr.write(`revoked key "${name}"\n`);
      });
    });
  keys.command("list").action(async () => {
    await withStore(async (s) => {
      for (const k of await (await s.keys()).list()) process.stdout.write(keyLine(k));
    });
  });
}
