import type { Command } from "commander";
import type { ConnectorInput, ConnectorRecord } from "../connectors/connector-record.ts";
import { ApiError } from "../errors.ts";
import { keyOf, parseVersion, print, readText, type KeyOpt } from "./admin-io.ts";
import { cliCaller, parseJsonObject, withRuntime } from "./cli-support.ts";

/**
 * `tai connectors list|put|refresh|delete` (docs/connectors.md §12): the service every
 * door calls (`runtime.connectors`), as the `--key` (or `$TAI_KEY`) holder, which must
 * be an ADMIN (a lower caller is refused FORBIDDEN, exit 2). A refusal exits 2 with the
 * API error's message and its issues (main.ts).
 */

/** What a `put` file holds: a `ConnectorInput` as JSON. */
function readInput(file: string): ConnectorInput {
  const text = readText(file);
  return parseJsonObject(text) as unknown as ConnectorInput;
}

function line(c: ConnectorRecord): string {
  const on = c.tools.filter((t) => t.enabled).length;
  return `${c.name.padEnd(24)} ${c.kind.padEnd(8)} v${String(c.version).padEnd(4)} listing v${String(c.listingVersion).padEnd(4)} ${String(on).padStart(3)} tools  ${c.health.state}${c.refreshError ? `  (${c.refreshError})` : ""}`;
}

export function registerConnectorCommands(program: Command): void {
  const connectors = program
    .command("connectors")
    .description("list, store, refresh and delete connectors (ADMIN; docs/connectors.md)");
  connectors
    .command("list")
    .description("list the stored connectors")
    .option("--json", "print JSON")
    .option("--key <key>", "an ADMIN API key (default: $TAI_KEY)")
    .action(async (opts: KeyOpt & { json?: boolean }) => {
      await withRuntime({ duties: "none", publishes: false }, async (rt) => {
        const list = await rt.connectors.list(await cliCaller(rt, keyOf(opts)));
        if (opts.json) return print(rt, list);
        for (const c of list) process.stdout.write(`${rt.secrets.scrubText(line(c))}\n`);
      });
    });
  connectors
    .command("put")
    .description(
      "create or replace a connector from a JSON file (a ConnectorInput): connects, lists the upstream and stores both",
    )
    .argument("<file>", "a .json file holding { name, kind, description?, settings, tools? }")
    .option("--expected-version <n>", "the stored version being replaced (omit to create)", parseVersion)
    .option("--key <key>", "an ADMIN API key (default: $TAI_KEY)")
    .action(async (file: string, opts: KeyOpt & { expectedVersion?: number }) => {
      const input = readInput(file);
      await withRuntime({ duties: "none" }, async (rt) => {
        const r = await rt.connectors.put(await cliCaller(rt, keyOf(opts)), input, opts.expectedVersion);
        print(rt, r);
        process.stderr.write(
          `stored connector "${r.connector.name}" as v${r.connector.version} (listing v${r.connector.listingVersion}, ${r.connector.tools.length} tools)\n`,
        );
      });
    });
  connectors
    .command("refresh")
    .description("list the upstream now; a new listing version when its tools differ")
    .argument("<name>", "connector name")
    .option("--key <key>", "an ADMIN API key (default: $TAI_KEY)")
    .action(async (name: string, opts: KeyOpt) => {
      await withRuntime({ duties: "none" }, async (rt) => {
        const r = await rt.connectors.refresh(await cliCaller(rt, keyOf(opts)), name);
        print(rt, r);
        process.stderr.write(
          r.change
            ? `connector "${name}" now at listing v${r.change.listingVersion}\n`
            : `connector "${name}": the listing did not change\n`,
        );
      });
    });
  connectors
    .command("delete")
    .description("delete a connector; its tools leave the surface")
    .argument("<name>", "connector name")
    .option("--expected-version <n>", "the stored version read before the change", parseVersion)
    .option("--key <key>", "an ADMIN API key (default: $TAI_KEY)")
    .action(async (name: string, opts: KeyOpt & { expectedVersion?: number }) => {
      await withRuntime({ duties: "none" }, async (rt) => {
        if (!(await rt.connectors.delete(await cliCaller(rt, keyOf(opts)), name, opts.expectedVersion)))
          throw new ApiError("NOT_FOUND", `no connector named "${name}"`);
        process.stderr.write(`deleted connector "${name}"\n`);
      });
    });
}
