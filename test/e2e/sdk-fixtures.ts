import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { requiredEnv, type ApiClient, type TestPlatform } from "@hangar/test-harness";
import { ok } from "./invocation-fixtures";

/**
 * Helpers of the tests that drive the platform with the public Python client SDK (PyPI `roboto`,
 * the pinned 0.53.0 and the newest 0.62.0, installed by scripts/install-python-sdk.sh).
 *
 * The SDK sends S3 requests wherever boto3 sends them: it ignores the `endpoint` that the platform's
 * credentials carry, so a client reaches the embedded S3-compatible store through boto3's
 * `AWS_ENDPOINT_URL_S3`. The scripts get it from here; actions get it from the runner.
 */

const run = promisify(execFile);

/** A work directory and a way to run SDK scripts against one platform. */
export interface SdkWorkspace {
  /** A fresh directory for the scripts, their inputs and their downloads. */
  work: string;
  /** Writes `files` under a fresh directory in the work directory and returns its path. */
  directoryWith(name: string, files: Record<string, string | Buffer>): Promise<string>;
  /**
   * Runs a Python script with the SDK as a client configures it (`ROBOTO_SERVICE_ENDPOINT`,
   * `ROBOTO_API_KEY` = `token`, and the S3 endpoint for boto3), `args` as its JSON argument; the
   * script prints one JSON value last, which is returned.
   */
  sdk(name: string, script: string, args: Record<string, unknown>, token: string): Promise<any>;
  close(): Promise<void>;
}

/** Which installed SDK release a workspace's scripts run with. */
export type SdkRelease = "pinned" | "newest";

const PYTHON_OF: Record<SdkRelease, string> = { pinned: "HANGAR_TEST_ROBOTO_PYTHON", newest: "HANGAR_TEST_ROBOTO_NEXT_PYTHON" };

/** Both releases, in the order the compatibility suites run them. */
export const SDK_RELEASES: readonly SdkRelease[] = ["pinned", "newest"];

/** The PyPI version of each release (what scripts/install-python-sdk.sh installs). */
export const SDK_VERSION: Record<SdkRelease, string> = { pinned: "0.53.0", newest: "0.62.0" };

/**
 * Registers each flow of a compatibility suite once per SDK release: `prepare` builds a release's
 * context (its own tenants and workspace, so the two runs share no data) in a beforeAll registered
 * here, so call this after the beforeAll that starts the platform; `enter` installs the context
 * while that release's test runs (the tests of a file run one at a time).
 */
export function perRelease<C>(prepare: (release: SdkRelease) => Promise<C>, enter: (context: C, release: SdkRelease) => void): (name: string, fn: () => Promise<void>) => void {
  const contexts = new Map<SdkRelease, C>();
  beforeAll(async () => {
    for (const release of SDK_RELEASES) contexts.set(release, await prepare(release));
  });
  return (name, fn) => {
    for (const release of SDK_RELEASES) {
      test(`${name} [roboto ${SDK_VERSION[release]}]`, async () => {
        enter(contexts.get(release)!, release);
        await fn();
      });
    }
  };
}
/** The platform a workspace's scripts call: its gateway, and the S3 endpoint of its object store (an embedded or a distributed platform). */
export type SdkTarget = Pick<TestPlatform, "url"> & { objectStore: { location: { endpoint: string | undefined } } };

/** A workspace whose scripts run with the given SDK release (default the pinned 0.53.0). */
export async function sdkWorkspace(t: SdkTarget, release: SdkRelease = "pinned"): Promise<SdkWorkspace> {
  const work = await mkdtemp(path.join(tmpdir(), "hangar-sdk-"));
  return {
    work,
    async directoryWith(name, files) {
      const dir = path.join(work, name);
      for (const [relative, content] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(dir, relative)), { recursive: true });
        await writeFile(path.join(dir, relative), content);
      }
      return dir;
    },
    async sdk(name, script, args, token) {
      const file = path.join(work, `${name}.py`);
      await writeFile(file, script);
      const env = {
        PATH: process.env.PATH ?? "",
        HOME: work,
        ROBOTO_CACHE_DIR: path.join(work, "cache"),
        ROBOTO_SERVICE_ENDPOINT: t.url,
        ROBOTO_API_KEY: token,
        AWS_ENDPOINT_URL_S3: t.objectStore.location.endpoint!,
      };
      try {
        const python = requiredEnv(PYTHON_OF[release]);
        // In the workspace: a script writing a relative path (a file to upload) must not leave it in the repository.
        const { stdout } = await run(python, [file, JSON.stringify(args)], { cwd: work, env, timeout: 50_000, maxBuffer: 16 * 1024 * 1024 });
        return JSON.parse(stdout.trim().split("\n").at(-1)!);
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: string; stderr?: string };
        throw new Error(`${name}.py failed: ${String(error)}\n${stdout ?? ""}\n${stderr ?? ""}`);
      }
    },
    close: () => rm(work, { recursive: true, force: true }),
  };
}

/** Compares bytes by digest: jest's deep equality takes seconds over megabytes. */
export const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

/** A dataset as the gateway answers it. */
export async function recordOf(client: ApiClient, datasetId: string): Promise<any> {
  return ok(await client.get(`/v1/datasets/${datasetId}`));
}

/** The file at `relativePath` in a dataset, as the gateway answers it. */
export async function fileAtPath(client: ApiClient, datasetId: string, relativePath: string): Promise<any> {
  return ok(await client.get(`/v1/files/record/path/${encodeURIComponent(relativePath)}/association/${datasetId}`));
}

/** The bytes of the file at `relativePath` in a dataset, downloaded through its signed URL. */
export async function contentAt(client: ApiClient, datasetId: string, relativePath: string): Promise<Buffer> {
  const { url } = ok(await client.get(`/v1/files/${(await fileAtPath(client, datasetId, relativePath)).file_id}/signed-url`));
  return Buffer.from(await (await fetch(url)).arrayBuffer());
}

/**
 * A Python script that records ten messages, 100 ms apart from 1 s after the epoch, on channel
 * `/imu` (JSON encoding) as `imu.mcap`, uploads it into `args["dataset_id"]` with the SDK and
 * prints `{"file_id": ...}`. `message` is the Python expression of message `i`.
 */
export function imuRecordingScript(message: string): string {
  return String.raw`
import json, sys, pathlib
from mcap.writer import Writer
from roboto import Dataset
args = json.loads(sys.argv[1])
path = pathlib.Path("imu.mcap")
with open(path, "wb") as stream:
    writer = Writer(stream)
    writer.start()
    schema = writer.register_schema(name="Imu", encoding="jsonschema", data=json.dumps({"type": "object"}).encode())
    channel = writer.register_channel(topic="/imu", message_encoding="json", schema_id=schema)
    for i in range(10):
        t = 1_000_000_000 + i * 100_000_000
        writer.add_message(channel_id=channel, log_time=t, publish_time=t, data=json.dumps(${message}).encode())
    writer.finish()
dataset = Dataset.from_id(args["dataset_id"])
dataset.upload_file(path)
print(json.dumps({"file_id": dataset.get_file_by_path("imu.mcap").file_id}))
`;
}
