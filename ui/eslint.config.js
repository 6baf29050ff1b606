// The UI's linter (flat config): ESLint's and typescript-eslint's recommended
// rules, and React's rules of hooks. `npm run lint` fails on any warning, so a
// missing effect dependency or a conditional hook stops the build like a type
// error does; a deliberate exception is an `eslint-disable-next-line` with the
// rule's name and a comment saying why.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  // Generated from the Rust types by ts-rs: fixed by regenerating, not by hand.
  { ignores: ["dist/", ".dist-next/", "node_modules/", "src/generated/"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["src/**/*.{ts,tsx}", "vite.config.ts"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    plugins: { "react-hooks": reactHooks },
    rules: {
      // The two classic rules, both as errors: a hook called conditionally
      // breaks React's state order; a missing dependency reads stale state.
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      // Unused names are already type errors (noUnusedLocals/Parameters);
      // here `_`-prefixed ones are the intended exception.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" },
      ],
    },
  },
);
