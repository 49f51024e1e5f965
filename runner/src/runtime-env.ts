import type { JsonObject } from "@bufbuild/protobuf";
import type { Invocation } from "@hangar/shared/proto/compute";
import type { Workspace } from "./workspace";

/** What the action runtime environment is made of. */
export interface RuntimeEnvInput {
  invocation: Invocation;
  workspace: Workspace;
  gatewayUrl: string;
  apiKey: string;
  /** The object store's S3 endpoint when it is not AWS's (see objectStoreEndpoint). */
  objectStoreEndpoint?: string | undefined;
}

/**
 * The environment an action runs with: the variables the client SDK's action runtime reads
 * (`ROBOTO_*`, with each parameter also as `ROBOTO_PARAM_<name>` for the older runtime), laid over
 * the action's own `env_vars`, so that an action cannot redirect its runtime by accident. With a
 * store that is not AWS's, `AWS_ENDPOINT_URL_S3` names it (under the action's `env_vars`), so that
 * the SDK's file downloads and uploads reach it.
 */
export function actionEnvironment(input: RuntimeEnvInput): Record<string, string> {
  const { invocation, workspace } = input;
  return {
    ...(input.objectStoreEndpoint ? { AWS_ENDPOINT_URL_S3: input.objectStoreEndpoint } : {}),
    ...invocation.containerParameters?.envVars,
    ...parameterVariables(invocation.parameterValues ?? {}),
    ROBOTO_INPUT_DIR: workspace.inputDir,
    ROBOTO_OUTPUT_DIR: workspace.outputDir,
    ROBOTO_INVOCATION_ID: invocation.invocationId,
    ROBOTO_DATASET_ID: invocation.dataSource?.dataSourceId ?? "",
    ROBOTO_ORG_ID: invocation.orgId,
    ROBOTO_ACTION_PARAMETERS_FILE: workspace.parametersFile,
    ROBOTO_ACTION_INPUTS_MANIFEST: workspace.inputsManifestFile,
    ROBOTO_ACTION_TIMEOUT: String(invocation.timeout),
    ROBOTO_ACTION_RUNTIME_CONFIG_DIR: workspace.configDir,
    ROBOTO_SERVICE_ENDPOINT: input.gatewayUrl,
    ROBOTO_API_KEY: input.apiKey,
    ROBOTO_DATASET_METADATA_CHANGESET_FILE: workspace.datasetChangesetFile,
    ROBOTO_FILE_METADATA_CHANGESET_FILE: workspace.fileChangesetFile,
  };
}

function parameterVariables(values: JsonObject): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [`ROBOTO_PARAM_${name}`, typeof value === "string" ? value : JSON.stringify(value)]),
  );
}
