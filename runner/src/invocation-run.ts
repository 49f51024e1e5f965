import { writeFile } from "node:fs/promises";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "@hangar/shared";
import type { Invocation, RunnerLease } from "@hangar/shared/proto/compute";
import { applyDatasetChangeset, applyFileChangesets } from "./changesets";
import type { ComputeClient } from "./compute-client";
import { launch, NotRunnableError, type ActionExecutor } from "./executors";
import { createGatewayClient, type GatewayClient } from "./gateway-client";
import { startHeartbeat, type StopReason } from "./heartbeat";
import { objectStoreEndpoint, prepareInputs } from "./inputs";
import { createLogSink, type LogProcess, type LogSink } from "./log-sink";
import { outputDestinationOf, uploadOutputs } from "./outputs";
import type { ExecutorKind, ResolvedRunnerOptions } from "./runner-options";
import { actionEnvironment } from "./runtime-env";
import { createWorkspace, removeWorkspace, type Workspace } from "./workspace";

/** A floor under the renewal interval the compute service asks for. */
const MIN_RENEW_INTERVAL_MS = 100;

/** InvocationStatus values a runner reports (wire-notes.md). */
const Status = { Downloading: 2, Processing: 3, Uploading: 4, Completed: 5, Failed: 998 } as const;

/** What a runner gives each run. */
export interface RunDeps {
  compute: ComputeClient;
  options: ResolvedRunnerOptions;
  executors: Map<ExecutorKind, ActionExecutor>;
}

/** How a run ended: reported as Completed or Failed, or stopped without a report (the invocation ended elsewhere). */
type Outcome = { status: "completed" } | { status: "failed"; detail: string } | { status: "stopped"; reason: StopReason };

/** One invocation being run under its lease. */
interface Run {
  lease: RunnerLease;
  invocation: Invocation;
  deps: RunDeps;
  workspace: Workspace;
  gateway: GatewayClient;
  logs: LogSink;
  stop: AbortController;
  logger: Logger;
}

/**
 * Runs a claimed invocation to its end: Downloading (inputs, parameters), Processing (the
 * action), Uploading (outputs and changesets), Completed; or Failed with the reason. The lease
 * is renewed meanwhile; when the invocation is cancelled, times out, or the lease is lost, the
 * action is killed. `shutdown` stops the run without a report, so the lapsed lease requeues it.
 */
export async function runLease(lease: RunnerLease, deps: RunDeps, shutdown: AbortSignal): Promise<void> {
  const invocation = lease.invocation!;
  const logger = deps.options.logger.child({ invocationId: invocation.invocationId });
  const workspace = await createWorkspace(deps.options.workDir, invocation.invocationId);
  const stop = new AbortController();
  const stopWith = (reason: StopReason) => {
    if (!stop.signal.aborted) stop.abort(reason);
  };
  const onShutdown = () => stopWith("runner stopping");
  shutdown.addEventListener("abort", onShutdown, { once: true });
  const deadline = setTimeout(() => stopWith("timed out"), Number(invocation.timeout) * 60_000);
  const logs = createLogSink({ compute: deps.compute, leaseId: lease.leaseId, onError: (error) => logger.debug({ err: error }, "log lines dropped") });
  const heartbeat = startHeartbeat({
    compute: deps.compute,
    leaseId: lease.leaseId,
    invocationId: invocation.invocationId,
    intervalMs: Math.max(MIN_RENEW_INTERVAL_MS, Number(lease.renewIntervalMs)),
    onStop: stopWith,
    onError: (error) => logger.warn({ err: error }, "lease renewal failed"),
  });
  try {
    const gateway = createGatewayClient(deps.options.gatewayUrl, lease.apiKey);
    const run: Run = { lease, invocation, deps, workspace, gateway, logs, stop, logger };
    const outcome = await execute(run);
    // The logs go before the final status, so whoever sees the invocation end also sees all of them.
    await logs.close();
    await report(run, outcome);
    logger.info({ outcome }, "invocation run ended");
  } finally {
    clearTimeout(deadline);
    heartbeat.stop();
    shutdown.removeEventListener("abort", onShutdown);
    await logs.close();
    await removeWorkspace(workspace);
  }
}

async function execute(run: Run): Promise<Outcome> {
  try {
    await reportStatus(run, Status.Downloading);
    const storeEndpoint = await phase(run, "setup", "could not prepare the inputs", () => prepare(run));
    await reportStatus(run, Status.Processing);
    const failure = await runAction(run, storeEndpoint);
    if (failure) return failure;
    await reportStatus(run, Status.Uploading);
    await phase(run, "output_handler", "could not handle the outputs", () => handleOutputs(run));
    return { status: "completed" };
  } catch (error) {
    if (run.stop.signal.aborted) return stopped(run);
    if (error instanceof ConnectError && error.code === Code.FailedPrecondition) return { status: "stopped", reason: "lease lost" };
    return { status: "failed", detail: messageOf(error) };
  }
}

/** Runs one step of the run, turning its failure into a logged, prefixed reason. */
async function phase<T>(run: Run, process: LogProcess, failure: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (run.stop.signal.aborted) throw error;
    const detail = `${failure}: ${messageOf(error)}`;
    run.logs.write(process, detail);
    throw new Error(detail, { cause: error });
  }
}

/** Downloads the inputs and writes the runtime files; resolves with the object store's endpoint for the action. */
async function prepare(run: Run): Promise<string | undefined> {
  const { invocation, workspace, logs } = run;
  const datasetId = invocation.dataSource?.dataSourceId ?? "";
  const download = run.lease.action?.requiresDownloadedInputs !== false;
  if (invocation.inputData.length > 0) logs.write("setup", `resolving inputs ${invocation.inputData.join(", ")}`);
  const files = await prepareInputs(run.gateway, { datasetId, patterns: invocation.inputData, download }, workspace, run.stop.signal);
  logs.write("setup", download ? `downloaded ${files.length} input files` : `listed ${files.length} input files (not downloaded)`);
  await writeFile(workspace.parametersFile, JSON.stringify(invocation.parameterValues ?? {}, null, 2));
  return objectStoreEndpoint(run.gateway, datasetId, run.stop.signal);
}

/** Runs the action; resolves with a failure, or undefined when it exited with 0. */
async function runAction(run: Run, storeEndpoint: string | undefined): Promise<Outcome | undefined> {
  const { invocation, workspace, deps } = run;
  const parameters = invocation.containerParameters;
  const image = invocation.provenance?.executable?.containerImageUri;
  const executor = (image && deps.executors.get("container")) || deps.executors.get("process") || deps.executors.get("container")!;
  let plan;
  try {
    plan = executor.plan({
      invocationId: invocation.invocationId,
      entryPoint: parameters?.entryPoint ?? [],
      command: parameters?.command ?? [],
      workdir: parameters?.workdir,
      image,
      env: actionEnvironment({ invocation, workspace, gatewayUrl: deps.options.gatewayUrl, apiKey: run.lease.apiKey, objectStoreEndpoint: storeEndpoint }),
      workspace,
    });
  } catch (error) {
    if (error instanceof NotRunnableError) return { status: "failed", detail: error.message };
    throw error;
  }
  run.logs.write("setup", `starting the action (${executor.kind} executor)`);
  const result = await launch(plan, { onLine: (line) => run.logs.write("action", line), signal: run.stop.signal, killGraceMs: deps.options.killGraceMs }).catch(
    (error: unknown) => ({ startError: messageOf(error) }),
  );
  if (run.stop.signal.aborted) return stopped(run);
  if ("startError" in result) return { status: "failed", detail: `could not start the action: ${result.startError}` };
  if (result.exitCode === 0) return undefined;
  return { status: "failed", detail: result.exitCode !== null ? `exited with code ${result.exitCode}` : `killed by ${result.signal}` };
}

async function handleOutputs(run: Run): Promise<void> {
  const { invocation, workspace, logs, gateway } = run;
  const signal = run.stop.signal;
  const destination = outputDestinationOf(invocation);
  const uploaded = await uploadOutputs(gateway, workspace.outputDir, destination, signal);
  logs.write("output_handler", `uploaded ${uploaded.length} output files`);
  if (await applyDatasetChangeset(gateway, workspace.datasetChangesetFile, invocation.dataSource?.dataSourceId ?? "", signal)) {
    logs.write("output_handler", "applied the dataset metadata changeset");
  }
  const fileUpdates = await applyFileChangesets(gateway, workspace.fileChangesetFile, destination, signal);
  if (fileUpdates > 0) logs.write("output_handler", `applied ${fileUpdates} file metadata updates`);
}

function stopped(run: Run): Outcome {
  const reason = run.stop.signal.reason as StopReason;
  return reason === "timed out" ? { status: "failed", detail: `timed out after ${run.invocation.timeout} min` } : { status: "stopped", reason };
}

/** Reports how the run ended; a refused report (the invocation was cancelled meanwhile) leaves the invocation as it is. */
async function report(run: Run, outcome: Outcome): Promise<void> {
  if (outcome.status === "stopped") return;
  const [status, detail] = outcome.status === "completed" ? [Status.Completed, ""] : [Status.Failed, outcome.detail];
  await reportStatus(run, status, detail).catch((error: unknown) => run.logger.warn({ err: error }, "final status report refused"));
}

function reportStatus(run: Run, status: number, detail = ""): Promise<unknown> {
  return run.deps.compute.reportStatus({ leaseId: run.lease.leaseId, status, detail });
}

/** An error's message; errors from Node's own modules may come from another realm, so `instanceof Error` is not asked. */
function messageOf(error: unknown): string {
  return typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error);
}
