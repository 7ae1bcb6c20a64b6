// ESLint over the page's own JavaScript (ES modules in the browser, no build step).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["src/flyingchess/web/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      eqeqeq: ["error", "smart"],
      "no-var": "error",
      "prefer-const": "error",
      // a unit a newcomer can hold (docs/ARCHITECTURE.md): split a screen by concern instead
      "max-lines-per-function": ["error", { max: 200 }],
    },
  },
  {
    // runs before the modules, as a classic script (see its header)
    files: ["src/flyingchess/web/boot.js"],
    languageOptions: { sourceType: "script" },
    rules: { "no-var": "off" },
  },
];
