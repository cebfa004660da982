import { extname } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import YAML from "yaml";
import type { ScheduleInput, ScheduleRecord } from "../schedules/schedule-record.ts";
import { keyOf, parseVersion, print, readText, type KeyOpt } from "./admin-io.ts";
import { cliCaller, parseJsonObject, withRuntime } from "./cli-support.ts";

/**
 * `tai schedules list|put|delete` (docs/run-lifecycle.md §11.7): the service every door calls (`runtime.schedules`),
 * as the `--key` (or `$TAI_KEY`) holder, which must be an ADMIN (a lower caller is refused FORBIDDEN, exit 2). A
 * refusal exits 2 with the API error's message and its issues (main.ts).
 */

/** A `put` file: a ScheduleInput as JSON, or YAML for a .yaml/.yml file. */
function readFile(file: string): Record<string, unknown> {
  const text = readText(file);
  if ([".yaml", ".yml"].includes(extname(file))) {
    const value: unknown = YAML.parse(text);
    if (!value || typeof value !== "object" || Array.isArray(value))
      throw new InvalidArgumentError(`${file} must hold an object`);
    return value as Record<string, unknown>;
  }
  return parseJsonObject(text);
}

type PutOpts = KeyOpt & {
  expectedVersion?: number;
  name?: string;
  tool?: string;
  cron?: string;
  timeZone?: string;
  input?: string;
  disabled?: boolean;
};

/** The file's fields, each overridden by its flag. */
function inputOf(file: string | undefined, o: PutOpts): ScheduleInput {
  const base = file ? readFile(file) : {};
  return {
    ...base,
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.tool !== undefined ? { tool: o.tool } : {}),
    ...(o.cron !== undefined ? { cron: o.cron } : {}),
    ...(o.timeZone !== undefined ? { timeZone: o.timeZone } : {}),
    ...(o.input !== undefined ? { input: parseJsonObject(o.input) } : {}),
    ...(o.disabled ? { enabled: false } : {}),
  } as unknown as ScheduleInput;
}

function line(s: ScheduleRecord): string {
  const when = s.enabled ? `next ${s.nextTickAt ?? "-"}` : "disabled";
  return `${s.name.padEnd(24)} v${String(s.version).padEnd(4)} ${s.tool.padEnd(24)} ${`"${s.cron}" ${s.timeZone}`.padEnd(32)} ${when}  last ${s.lastTickAt ?? "-"}`;
}

export function registerScheduleCommands(program: Command): void {
  const schedules = program
    .command("schedules")
    .description("list, store and delete cron schedules (ADMIN; docs/run-lifecycle.md §11.7)");
  schedules
    .command("list")
    .description("list the stored schedules")
    .option("--json", "print JSON")
    .option("--key <key>", "an ADMIN API key (default: $TAI_KEY)")
    .action(async (opts: KeyOpt & { json?: boolean }) => {
      await withRuntime({ duties: "none", publishes: false }, async (rt) => {
        const list = await rt.schedules.list(await cliCaller(rt, keyOf(opts)));
        if (opts.json) return print(rt, list);
        for (const s of list) process.stdout.write(`${line(s)}\n`);
      });
    });
  schedules
    .command("put")
    .description("create or replace a schedule from a JSON/YAML file (a ScheduleInput), flags, or both (flags win)")
    .argument("[file]", "a .json, .yaml or .yml file holding { name, tool, input?, cron, timeZone?, enabled? }")
    .option("--name <name>", "its name")
    .option("--tool <tool>", "the surface name each tick dispatches")
    .option("--cron <cron>", 'a cron expression, e.g. "0 9 * * 1-5"')
    .option("--time-zone <zone>", 'an IANA time zone (default "UTC")')
    .option("--input <json>", "the input each tick dispatches, as a JSON object")
    .option("--disabled", "store it disabled")
    .option("--expected-version <n>", "the stored version being replaced (omit to create)", parseVersion)
    .option("--key <key>", "an ADMIN API key (default: $TAI_KEY)")
    .action(async (file: string | undefined, opts: PutOpts) => {
      const input = inputOf(file, opts);
      await withRuntime({ duties: "none" }, async (rt) => {
        const s = await rt.schedules.put(await cliCaller(rt, keyOf(opts)), input, opts.expectedVersion);
        print(rt, s);
        process.stderr.write(`stored schedule "${s.name}" as v${s.version} (next tick ${s.nextTickAt ?? "none"})\n`);
      });
    });
  schedules
    .command("delete")
    .description("delete a schedule")
    .argument("<name>", "schedule name")
    .option("--key <key>", "an ADMIN API key (default: $TAI_KEY)")
    .action(async (name: string, opts: KeyOpt) => {
      await withRuntime({ duties: "none" }, async (rt) => {
        await rt.schedules.delete(await cliCaller(rt, keyOf(opts)), name);
        process.stderr.write(`deleted schedule "${name}"\n`);
      });
    });
}
