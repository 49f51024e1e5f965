import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * The directories and files of one invocation's run. Inputs and outputs hold only the action's
 * data: the runtime files (parameters, inputs manifest, changesets) live beside them in
 * `.roboto`, so they are neither taken for inputs nor uploaded as outputs.
 */
export interface Workspace {
  root: string;
  inputDir: string;
  outputDir: string;
  /** `ROBOTO_ACTION_RUNTIME_CONFIG_DIR`. */
  configDir: string;
  /** `ROBOTO_ACTION_PARAMETERS_FILE`: a JSON object of parameter values. */
  parametersFile: string;
  /** `ROBOTO_ACTION_INPUTS_MANIFEST`: the client SDK's ActionInputRecord JSON. */
  inputsManifestFile: string;
  /** `ROBOTO_DATASET_METADATA_CHANGESET_FILE`: a MetadataChangeset JSON the action may write. */
  datasetChangesetFile: string;
  /** `ROBOTO_FILE_METADATA_CHANGESET_FILE`: JSON lines of `{relative_path, update}` the action may append. */
  fileChangesetFile: string;
}

/** Creates a fresh workspace for an invocation under `workDir`, with empty changeset files. */
export async function createWorkspace(workDir: string, invocationId: string): Promise<Workspace> {
  const root = path.resolve(workDir, invocationId);
  await rm(root, { recursive: true, force: true });
  const configDir = path.join(root, ".roboto");
  const workspace: Workspace = {
    root,
    inputDir: path.join(root, "input"),
    outputDir: path.join(root, "output"),
    configDir,
    parametersFile: path.join(configDir, "action_parameters.json"),
    inputsManifestFile: path.join(configDir, "action_inputs_manifest.json"),
    datasetChangesetFile: path.join(configDir, "dataset_metadata_changeset.json"),
    fileChangesetFile: path.join(configDir, "file_metadata_changeset.jsonl"),
  };
  for (const dir of [workspace.inputDir, workspace.outputDir, configDir]) await mkdir(dir, { recursive: true });
  await writeFile(workspace.datasetChangesetFile, "");
  await writeFile(workspace.fileChangesetFile, "");
  return workspace;
}

/** Removes a workspace and everything the action left in it. */
export async function removeWorkspace(workspace: Workspace): Promise<void> {
  await rm(workspace.root, { recursive: true, force: true });
}

/** `relativePath` under `dir`, refusing paths that would leave it (`../x`, absolute paths). */
export function pathWithin(dir: string, relativePath: string): string {
  const target = path.resolve(dir, relativePath);
  if (!target.startsWith(dir + path.sep)) throw new Error(`path '${relativePath}' leaves ${dir}`);
  return target;
}
