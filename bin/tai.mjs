#!/usr/bin/env node
// The `tai` command: the compiled JavaScript in dist/ (built by `npm ci`, `npm run build`).
// In a development checkout, output older than the sources is refused with the fix rather
// than run: `npm start` and `npm test` rebuild it first by themselves.
//
// The runtime is checked first, with nothing imported that an old Node.js lacks: on one,
// the only output is one line naming the fix, and the exit code 2.
const [major, minor] = process.versions.node.split(".").map(Number);
if (!((major === 22 && minor >= 15) || (major > 22 && major < 26))) {
  process.stderr.write(
    `tai: tai42 needs Node.js 22.15+ or 24 (24 LTS recommended), not ${process.versions.node}: ` +
      "install it (https://nodejs.org), or in a tai42 checkout run `. scripts/use-node24.sh` first (Node.js 24 from the npm registry)\n",
  );
  process.exit(2);
}
const { existsSync } = await import("node:fs");
const { enableCompileCache } = await import("node:module");

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
