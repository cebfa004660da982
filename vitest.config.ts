import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // One graphql realm: Vite would give the project's files graphql's ESM build while
    // yoga, Pothos and graphql-ws load its CommonJS build, and `instanceof` checks across
    // the two fail ("Cannot use GraphQLObjectType from another module or realm").
    alias: [
      { find: /^graphql$/, replacement: createRequire(import.meta.url).resolve("graphql") },
      // Tests run the TypeScript sources: `import "tai42"` in a test module means src/, not
      // the compiled dist/ that package.json exports by default.
      { find: /^tai42$/, replacement: fileURLToPath(new URL("src/index.ts", import.meta.url)) },
      {
        find: /^tai42\/contrib$/,
        replacement: fileURLToPath(new URL("src/extensions/contrib/index.ts", import.meta.url)),
      },
      { find: /^tai42\/client$/, replacement: fileURLToPath(new URL("src/client/index.ts", import.meta.url)) },
    ],
  },
  test: {
    // Likewise where Node itself resolves (import.meta.resolve, worker threads): the
    // "tai42-source" export condition points tai42's exports at src/.
    execArgv: ["--conditions=tai42-source"],
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    env: { TAI_LOG: "silent" },
  },
});
