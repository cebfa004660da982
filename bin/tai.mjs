#!/usr/bin/env node
// The `tai` command: the compiled JavaScript in dist/ (built by `npm ci`, `npm run build`).
// In a development checkout, output older than the sources is refused with the fix rather
// than run: `npm start` and `npm test` rebuild it first by themselves.
import { existsSync } from "node:fs";
import { enableCompileCache } from "node:module";

const root = new URL("..", import.meta.url);
if (existsSync(new URL("tsconfig.build.json", root)) && existsSync(new URL("src", root))) {
  const { staleness, describeStaleness } = await import("../scripts/build.mjs");
  const stale = staleness();
  if (stale) {
    process.stderr.write(
      `tai: ${describeStaleness(stale)}.\nRun \`npm run build\` (npm start and npm test rebuild by themselves).\n`,
    );
    process.exit(2);
  }
}
// V8's compiled code for every module loaded below is kept on disk (in the OS temporary
// folder) and reused by the next start. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
enableCompileCache?.();
await import("../dist/cli/main.js");
