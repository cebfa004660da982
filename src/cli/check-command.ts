import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { isPackageSpecifier } from "../modules/load-modules.ts";
import { printable } from "./printable.ts";

const TYPESCRIPT = /\.[mc]?ts$/;

/** The TypeScript files among `modules` (named, else TAI_MODULES); refuses what cannot be checked. */
export function modulesToCheck(named: string[], env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string[] {
  const modules = named.length
    ? named
    : (env.TAI_MODULES ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
  if (!modules.length) throw new Error("name the modules to check (tai check tools/x.ts) or set TAI_MODULES");
  // A package (tai42/contrib) was checked when it was built.
  const files = modules.filter((m) => !isPackageSpecifier(m));
  const missing = files.filter((f) => !existsSync(resolve(cwd, f)));
  if (missing.length) throw new Error(printable(`no such file: ${missing.join(", ")} (paths are relative to ${cwd})`));
  const typed = files.filter((f) => TYPESCRIPT.test(f));
  if (!typed.length)
    throw new Error(printable(`no TypeScript module to check among ${modules.join(", ")} (.ts, .mts or .cts)`));
  return typed;
}

/**
 * `tai check [modules…]`: type-checks tool and extension modules as the user's project
 * sees them, with tai42's own TypeScript (never one from the checked folder), printing
 * every name and diagnostic with its control characters escaped.
 */
export function registerCheckCommand(program: Command): void {
  program
    .command("check")
    .description(
      "type-check tool modules (default: TAI_MODULES) with the project's tsconfig.json, else strict defaults; exit 1 on a type error",
    )
    .argument("[modules...]", "TypeScript modules, relative to the working directory")
    .action(async (named: string[]) => {
      const files = modulesToCheck(named);
      // The compiler loads only for this command.
      const { typeCheck } = await import("./type-check.ts");
      const report = await typeCheck(files);
      for (const line of report.lines) process.stdout.write(`${line}\n`);
      const what = `${report.files.length} module${report.files.length === 1 ? "" : "s"} (TypeScript ${report.typescript}, options from ${report.options})`;
      if (report.errors) {
        process.stderr.write(`${report.errors} type error${report.errors === 1 ? "" : "s"} in ${what}\n`);
        process.exitCode = 1; // type errors; 2 is bad usage (EXIT)
      } else process.stderr.write(`checked ${what}: no type errors\n`);
    });
}
