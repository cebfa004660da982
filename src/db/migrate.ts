import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const script = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "scripts", "prisma.mjs");

/**
 * Applies pending migrations to `url` through the Prisma CLI (JS/WASM schema engine).
 * The SQLite path is resolved against the current working directory.
 */
export function migrate(url: string): Promise<void> {
  const target = url.startsWith("file:") ? `file:${resolve(url.slice(5).split("?")[0])}` : url;
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [script, "deploy", target], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", fail);
    child.on("exit", (code) => (code === 0 ? ok() : fail(new Error(`database migration failed:\n${out.replace(/postgres(ql)?:\/\/[^\s"]+/g, "postgresql://…")}`))));
  });
}
