#!/usr/bin/env node
import { ingestMcap } from "./ingest-mcap";
import { manifestToJson } from "./manifest";
import { createDirectorySink } from "./sink";
import { openFileSource } from "./source";

/**
 * `node ingest/dist/main.js <file.mcap> <out-dir>`: ingests the file, leaves one derived MCAP per
 * channel in out-dir (replacing what an earlier run left there) and prints the manifest as JSON
 * on stdout. On failure prints the reason on stderr, leaves out-dir untouched and exits 1; 2 for
 * bad arguments. The built-in ingestion action runs this.
 */
async function main(args: string[]): Promise<number> {
  if (args.length !== 2) {
    process.stderr.write("usage: main.js <file.mcap> <out-dir>\n");
    return 2;
  }
  const source = await openFileSource(args[0]!);
  try {
    const manifest = await ingestMcap(source, createDirectorySink(args[1]!));
    process.stdout.write(`${manifestToJson(manifest)}\n`);
    return 0;
  } finally {
    await source.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`ingestion failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
