// `node --import ./bench/lib/record-imports.mjs bin/tai.mjs serve`: records every package
// specifier (not a relative path, not node:) that tai42's own files (dist/, bin/) import,
// in first-import order, and writes them as a JSON array to $RECORD_IMPORTS_OUT at exit.
// The start-up scenario's bare yoga baseline imports exactly these (bare-yoga-start.mjs).
import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";

if (!registerHooks) throw new Error("recording imports needs module.registerHooks (Node 22.15 or later)");
const root = new URL("../../", import.meta.url).href;
const own = (url) =>
  url?.startsWith(root) && !url.includes("/node_modules/") && /\/(dist|bin)\//.test(url.slice(root.length - 1));
const specifiers = new Set();
registerHooks({
  resolve(specifier, context, next) {
    if (!/^(node:|\.|\/|file:|data:)/.test(specifier) && own(context.parentURL)) specifiers.add(specifier);
    return next(specifier, context);
  },
});
process.on("exit", () => writeFileSync(process.env.RECORD_IMPORTS_OUT, `${JSON.stringify([...specifiers])}\n`));
