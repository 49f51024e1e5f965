#!/usr/bin/env node
import { readFile } from "node:fs/promises";
import { createGatewayClient } from "@hangar/runner";
import { ingestInputFile, type ActionContext, type InputFile } from "./action-run";

/**
 * The built-in MCAP ingestion action (`MCAP_INGESTION_ACTION`), as a runner runs it: with the
 * client SDK's action runtime environment (`ROBOTO_*`), it ingests every downloaded `.mcap` input
 * (see ingestInputFile) through the gateway with the invocation's own token. Each file is ingested
 * on its own; a file that fails prints `ingestion of <path> failed: <reason>` and the process exits
 * 1 after the others, so the invocation fails with that line in its logs.
 */
async function main(env: NodeJS.ProcessEnv): Promise<number> {
  const context: ActionContext = {
    gateway: createGatewayClient(required(env, "ROBOTO_SERVICE_ENDPOINT"), required(env, "ROBOTO_API_KEY")),
    datasetId: required(env, "ROBOTO_DATASET_ID"),
    invocationId: required(env, "ROBOTO_INVOCATION_ID"),
    log: (line) => process.stdout.write(`${line}\n`),
    signal: new AbortController().signal,
  };
  const inputs = await readInputs(required(env, "ROBOTO_ACTION_INPUTS_MANIFEST"));
  let failed = 0;
  for (const input of inputs) {
    if (!input.relativePath.toLowerCase().endsWith(".mcap")) {
      context.log(`skipping ${input.relativePath}: not an .mcap file`);
      continue;
    }
    await ingestInputFile(context, input).catch((error: unknown) => {
      failed += 1;
      process.stderr.write(`ingestion of ${input.relativePath} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  }
  context.log(`ingested ${inputs.length - failed} of ${inputs.length} input files`);
  return failed > 0 ? 1 : 0;
}

/** The downloaded inputs of the runner's inputs manifest (`{files: [[record, local path or null], ...]}`). */
async function readInputs(manifestFile: string): Promise<InputFile[]> {
  const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { files: [{ file_id: string; relative_path: string }, string | null][] };
  return manifest.files.flatMap(([record, localPath]) => (localPath ? [{ fileId: record.file_id, relativePath: record.relative_path, localPath }] : []));
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: this runs as an action, started by a runner`);
  return value;
}

main(process.env).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`ingestion failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
