import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { ApiError } from "../errors.ts";

/** The top-level commands that do not apply the project config file before they run (they read it themselves). */
export const SKIPS_PROJECT_CONFIG = new Set(["init", "dev"]);

/** `tai init [DIR]` and `tai dev` (README "Using tai42 in your own project"). */
export function registerProjectCommands(program: Command): void {
  program
    .command("init")
    .description(
      "scaffold a project: package.json (merged into an existing one), tsconfig.json, tai42.config.ts, an example tool and its test",
    )
    .argument("[dir]", "the project folder (created if missing)", ".")
    .option("--tai42 <spec>", "the dependency spec of tai42 (default: the tarball this tai42 came from, else tai42)")
    .action(async (dir: string, opts: { tai42?: string }) => {
      const { existingFiles, installedSpec, mergedPackageJson, scaffoldFiles } = await import("./scaffold.ts");
      const target = resolve(dir);
      const files = scaffoldFiles(basename(target), opts.tai42 ?? installedSpec());
      const clash = existingFiles(target, files);
      if (clash.length)
        throw new ApiError(
          "BAD_USER_INPUT",
          `${target} already has ${clash.join(", ")}: tai init writes into a folder without them (nothing was written)`,
        );
      const pkg = join(target, "package.json");
      if (existsSync(pkg)) files["package.json"] = mergedPackageJson(readFileSync(pkg, "utf8"), files["package.json"]);
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(target, path)), { recursive: true });
        writeFileSync(join(target, path), text);
      }
      const cd = relative(process.cwd(), target);
      process.stdout.write(
        `Created a tai42 project in ${target}:\n${Object.keys(files)
          .map((f) => `  ${f}\n`)
          .join("")}\nNext:\n${cd ? `  cd ${cd}\n` : ""}  npm install\n  npm test        # runs test/hello.test.ts\n` +
          "  npx tai dev     # serves tools/hello.ts, restarting on every change\n",
      );
    });

  program
    .command("dev")
    .description("serve like `tai serve`, restarting the server when a module or the config file changes")
    .action(async () => {
      const { runDev } = await import("./dev-supervisor.ts");
      await runDev();
    });
}
