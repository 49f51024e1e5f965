import path from "node:path";

/**
 * Where the built-in ingestion action's script is: `dist/action.js` of the `@hangar/ingest` package
 * as this process resolves it (the workspace in a checkout, embedded or from dist/; `/app/ingest` in
 * the image, which the runner image shares). Resolved through the package's manifest, which is
 * there before the build, so a compute service started from source registers the same path.
 */
export function ingestActionScript(): string {
  return path.join(path.dirname(require.resolve("@hangar/ingest/package.json")), "dist", "action.js");
}
