// Type-aware rules that matter for async services: no promise is left floating or passed where a
// plain callback is expected, and every switch over a union handles every member. And the layering
// of the services (issue 10, docs/architecture.md): rpc -> domain <- store.
import tseslint from "typescript-eslint";

// Services whose src/ follows the layering and so gets the import rule below. A service joins once
// its code is restructured (the lead adds "data" and "compute" when their branches land); adding one
// before that would only turn the old shape into lint errors.
const LAYERED_SERVICES = ["admin", "compute", "data"];

// A relative import reaching into the folder `folder` of the same service (`../store/x`,
// `../../store`); a segment only, so `../object-store/...` is not `store`.
const into = (folder, message) => ({ regex: `^\\.{1,2}/(?:.*/)?${folder}(?:/|$)`, caseSensitive: true, message });

const ENTRY_POINT = "rpc/ and events/ are entry points: they call use cases in domain/ with the unit of work index.ts builds, never a store.";
const DOMAIN = "domain/ holds the rules over repository interfaces: no ORM, no driver, no store/, no rpc/ (the store implements domain's interfaces; rpc calls domain).";
const STORE = "store/ implements domain's repository interfaces and knows nothing of its callers (rpc/, events/).";

// What each layer may not import, as no-restricted-imports patterns.
const LAYER_RESTRICTIONS = {
  rpc: [into("store", ENTRY_POINT)],
  events: [into("store", ENTRY_POINT)],
  domain: [
    { group: ["@mikro-orm/*"], message: DOMAIN },
    { regex: "^(?:pg|knex)(?:/|$)", caseSensitive: true, message: DOMAIN },
    into("store", DOMAIN),
    into("rpc", DOMAIN),
  ],
  store: [into("rpc", STORE), into("events", STORE)],
};

/** One config block per layered service and layer, holding that layer's import restrictions. */
function layeringRules(services) {
  return services.flatMap((service) =>
    Object.entries(LAYER_RESTRICTIONS).map(([layer, patterns]) => ({
      files: [`services/${service}/src/${layer}/**/*.ts`],
      rules: { "no-restricted-imports": ["error", { patterns }] },
    })),
  );
}

export default tseslint.config(
  { ignores: ["**/dist/**", "**/gen/**", "node_modules/**", ".cache/**", "**/*.mjs", "**/*.js"] },
  {
    files: ["services/*/src/**/*.ts", "gateway/src/**/*.ts", "runner/src/**/*.ts", "ingest/src/**/*.ts", "ingest/src/**/*.mts", "test/**/*.ts"],
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
  ...layeringRules(LAYERED_SERVICES),
);
