// Type-aware rules that matter for async services: no promise is left floating or passed where a
// plain callback is expected, and every switch over a union handles every member.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/gen/**", "node_modules/**", ".cache/**", "**/*.mjs", "**/*.js"] },
  {
    files: ["services/*/src/**/*.ts", "gateway/src/**/*.ts", "runner/src/**/*.ts", "test/**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: "./tsconfig.json", tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
    },
  },
);
