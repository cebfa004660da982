import { readFileSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import type { Command } from "commander";
import { keyOf, READ_KEY, type KeyOpt } from "./admin-io.ts";
import { cliCaller, parseJsonObject, withRuntime, withStore } from "./cli-support.ts";
import type { FileFormat } from "./manifest-file.ts";

// A write is validated against the whole surface (a runtime with no server duties); a
// read opens only the stored data. The manifest file format (YAML) loads when used.
const manifestFile = () => import("./manifest-file.ts");

/** `tai presets …` and `tai manifests …`: the same services the GraphQL door calls. */
export function registerCompositionCommands(program: Command): void {
  registerPresetCommands(program);
  registerManifestCommands(program);
}

/** `tai presets list|create|delete`. */
function registerPresetCommands(program: Command): void {
  const presets = program.command("presets").description("list, create and delete presets");
  presets
    .command("list")
    .option("--json", "print JSON")
    .option(...READ_KEY)
    .action(async (opts: KeyOpt & { json?: boolean }) => {
      await withStore(async (s) => {
        await s.checkKey(keyOf(opts));
        const list = await s.presets();
        if (opts.json) return void process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        for (const p of list)
          process.stdout.write(
            `${p.name.padEnd(28)} v${String(p.version).padEnd(4)} ${p.baseTool.padEnd(24)} ${JSON.stringify(p.fixedKwargs)}\n`,
          );
      });
    });
  presets
    .command("create")
    .argument("<name>", "preset name")
    .requiredOption("--base <tool>", "the tool, branch or preset it builds on")
    .option("--kwargs <json>", "baked inputs as a JSON object", parseJsonObject, {})
    .option("--description <text>", "what the preset does")
    .option("--retry <json>", "its own retry policy as JSON (default: inherit)", parseJsonObject)
    .option("--limits <json>", "its limits as JSON (ADMIN; docs/flow-control.md §2)", parseJsonObject)
    .option("--key <key>", "API key (default: $TAI_KEY, else the anonymous role)")
    .action(
      async (
        name: string,
        opts: KeyOpt & {
          base: string;
          kwargs: Record<string, unknown>;
          description?: string;
          retry?: Record<string, unknown>;
          limits?: Record<string, unknown>;
        },
      ) => {
        await withRuntime({ duties: "none" }, async (rt) => {
          const caller = await cliCaller(rt, keyOf(opts));
          const p = await rt.presets.create(
            {
              name,
              baseTool: opts.base,
              fixedKwargs: opts.kwargs,
              description: opts.description ?? `${opts.base} with ${Object.keys(opts.kwargs).join(", ") || "no"} baked`,
              retryPolicy: opts.retry as never,
              ...(opts.limits ? { limits: opts.limits as never } : {}),
            },
            caller,
          );
          process.stdout.write(`${JSON.stringify(p, null, 2)}\n`);
        });
      },
    );
  presets
    .command("delete")
    .argument("<name>", "preset name")
    .option("--key <key>", "API key (default: $TAI_KEY, else the anonymous role)")
    .action(async (name: string, opts: KeyOpt) => {
      await withRuntime({ duties: "none" }, async (rt) => {
        await rt.presets.delete(name, await cliCaller(rt, keyOf(opts)));
        process.stderr.write(`deleted preset "${name}"\n`);
      });
    });
}

/** `tai manifests list|import|export|activate`. */
function registerManifestCommands(program: Command): void {
  const manifests = program
    .command("manifests")
    .description("list, import, export and activate manifests (JSON or YAML files)");
  manifests
    .command("list")
    .option(...READ_KEY)
    .action(async (opts: KeyOpt) => {
      await withStore(async (s) => {
        await s.checkKey(keyOf(opts));
        for (const m of await s.manifests())
          process.stdout.write(`${m.active ? "*" : " "} ${m.name.padEnd(28)} v${m.version}  ${m.description ?? ""}\n`);
      });
    });
  manifests
    .command("import")
    .argument("<file>", "a .json, .yaml or .yml manifest file")
    .option("--expected-version <n>", "the version being replaced (default: the current one)", (v) =>
      Number.parseInt(v, 10),
    )
    .option("--key <key>", "an ADMIN API key (default: $TAI_KEY)")
    .action(async (file: string, opts: KeyOpt & { expectedVersion?: number }) => {
      const { formatOf, parseManifest } = await manifestFile();
      const input = parseManifest(readFileSync(file, "utf8"), formatOf(file), file);
      await withRuntime({ duties: "none" }, async (rt) => {
        const caller = await cliCaller(rt, keyOf(opts));
        const current = await rt.manifests.get(input.name);
        if (
          current &&
          isDeepStrictEqual(current.document, input.document) &&
          (current.description ?? null) === (input.description ?? null)
        ) {
          process.stderr.write(`manifest "${input.name}" is unchanged (v${current.version})\n`);
          return;
        }
        const m = await rt.manifests.put(
          input,
          current ? (opts.expectedVersion ?? current.version) : undefined,
          caller,
        );
        process.stderr.write(`imported manifest "${m.name}" as v${m.version}\n`);
      });
    });
  manifests
    .command("export")
    .argument("<name>", "manifest name")
    .option("--out <file>", "write to a file (format from its extension) instead of stdout")
    .option("--format <format>", "json or yaml (stdout only)", "yaml")
    .option(...READ_KEY)
    .action(async (name: string, opts: KeyOpt & { out?: string; format: string }) => {
      const { formatOf, serializeManifest } = await manifestFile();
      const format = (opts.out ? formatOf(opts.out) : opts.format) as FileFormat;
      if (format !== "json" && format !== "yaml")
        throw new Error(`--format must be json or yaml (got "${opts.format}")`);
      await withStore(async (s) => {
        await s.checkKey(keyOf(opts));
        const m = await s.manifest(name);
        if (!m) throw new Error(`no manifest named "${name}"`);
        const text = serializeManifest(m, format);
        if (opts.out) writeFileSync(opts.out, text);
        else process.stdout.write(text);
      });
    });
  manifests
    .command("activate")
    .argument("<name>", "manifest name")
    .option("--key <key>", "an ADMIN API key (default: $TAI_KEY)")
    .action(async (name: string, opts: KeyOpt) => {
      await withRuntime({ duties: "none" }, async (rt) => {
        const m = await rt.manifests.activate(name, await cliCaller(rt, keyOf(opts)));
        process.stderr.write(`activated manifest "${m.name}" (v${m.version})\n`);
      });
    });
}
