// Writes test/client/types/demo-tools.ts: what `tai types` writes for the demo surface (the
// demo tools and agents, no modules of a user's), the tool map the typed-dispatch fixtures
// and docs/client.md's examples use. Checked in; test/client/tool-types-drift.test.ts fails
// when a demo tool's schema changed and this was not run again.
//
//   npm run client:types
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { App } from "../src/app.ts";
import { renderToolTypes } from "../src/cli/tool-types.ts";
import { loadConfig } from "../src/config.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLogger } from "../src/log.ts";
import { createRuntime } from "../src/runtime.ts";

/** Where the generated demo types live. */
export const OUTPUT = new URL("../test/client/types/demo-tools.ts", import.meta.url);

/** The header's name for the surface. */
export const DEMO_SOURCE = "the demo tools (`npm run client:types`)";

/** The contents of test/client/types/demo-tools.ts, from a runtime over a fresh database with the demo tools alone. */
export async function renderDemoToolTypes(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "tai42-demo-types-"));
  const databaseUrl = `file:${join(dir, "demo.db")}`;
  try {
    await migrate(databaseUrl);
    const config = { ...loadConfig({}), databaseUrl, demo: true, modules: [] };
    const rt = await createRuntime({
      config,
      app: new App(),
      loadModules: false,
      duties: "none",
      log: createLogger({}, () => {}),
    });
    try {
      const tools = rt.surface
        .list()
        .map((e) => ({ name: e.name, inputSchema: e.inputSchema, outputSchema: e.outputSchema }));
      return await renderToolTypes(tools, DEMO_SOURCE);
    } finally {
      await rt.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OUTPUT, await renderDemoToolTypes());
  console.log("wrote test/client/types/demo-tools.ts");
}
