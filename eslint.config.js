// ESLint flat config: typescript-eslint's recommended rules over src/, test/, bench/ and
// scripts/; formatting is Prettier's (eslint-config-prettier turns off the rules it owns).
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "dist/",
      "packages/*/dist/",
      "data/",
      "coverage/",
      "test-artifacts/",
      ".tmp/",
      "src/db/generated/",
      "src/dashboard/public/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: "module" },
    rules: {
      // TypeScript checks names; the rule does not know Node's or the browser's globals.
      "no-undef": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
    },
  },
  {
    // Tests read GraphQL results as untyped JSON.
    files: ["test/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  prettier,
  {
    // Prettier wraps code at 120 (.prettierrc.json); this holds comments to the same width.
    // A string or template literal is left whole, as Prettier leaves it.
    rules: {
      "max-len": [
        "error",
        {
          code: 120,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreRegExpLiterals: true,
          ignoreUrls: true,
        },
      ],
    },
  },
);
