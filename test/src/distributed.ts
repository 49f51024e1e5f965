import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { killWithParent, type ParentWatchdog } from "@hangar/shared";
import { createTestDatabase, requiredEnv } from "./database";
import { freePort } from "./harness-child";
import { apiClient, type ApiClient } from "./http";
import { readManifests, REPO_ROOT, type ManifestContainer } from "./manifests";

/** One component of the distributed platform, running as an OS process of its own. */
export interface ComponentProcess {
  readonly name: string;
  /** `SIGKILL`, as an OOM kill or a lost node ends a pod: no shutdown hook runs. Waits for the exit. */
  kill(): Promise<void>;
  /** Starts it again, with the same environment and port, and waits until it serves. */
  start(): Promise<void>;
  /** SIGTERM, the graceful stop a pod gets, then SIGKILL after `STOP_GRACE_MS`. Waits for the exit. */
  stop(): Promise<void>;
  /** The last 64 KiB of its output (every start's), for a failing test's message. */
  output(): string;
  /** The pid its command was started as (while it runs). */
  pid(): number | undefined;
}

/** The platform as the dev overlay deploys it, one process per Deployment. */
export interface DistributedPlatform {
  /** The gateway's base URL. */
  url: string;
  admin: ApiClient;
  adminToken: string;
  /** The object store's S3 endpoint, as the data service hands it to clients. */
  objectStore: { location: { endpoint: string } };
  /** Where a component's container port listens on this machine: `localPort("data", 9464)`. */
  localPort(component: string, containerPort: number): number;
  processes: Record<string, ComponentProcess>;
  close(): Promise<void>;
}

/** Order of start: the object store before the data service uses it, the services before the gateway, the gateway before the runner. */
const START_WAVES = [["object-store"], ["admin", "data", "compute", "assistant", "registry"], ["gateway"], ["runner"]];
/** The log line (pino's `msg`) by which each kind of process says it serves. */
const SERVING = /"msg":"([a-z]+ service listening|gateway listening|object store listening|runner started)"/;
const OUTPUT_KEPT = 64 * 1024;
/** How long a process may take to stop on SIGTERM before it is killed (a pod's grace is 30 s; tests need not wait that). */
const STOP_GRACE_MS = 10_000;

/**
 * Starts every Deployment of `deploy/base` plus the dev overlay's object store as separate OS
 * processes from the built `dist/` (run `npm run build` first), each with the environment its
 * manifest gives it (readManifests) and these differences from a cluster: its own free loopback
 * port instead of the container port, `http://<service>` names pointing at those ports, a
 * directory of its own for each volume, the harness's PostgreSQL (a fresh database) and Kafka
 * broker (under a `KAFKA_NAMESPACE` of its own), and fresh secrets. PostgreSQL and Kafka of the
 * overlay are the harness's. Every process is killed when this one ends, however it ends.
 */
export async function startDistributedPlatform(): Promise<DistributedPlatform> {
  const root = await mkdtemp(path.join(tmpdir(), "hangar-distributed-"));
  const adminToken = `hgr_test_${randomBytes(16).toString("hex")}`;
  const components = readManifests({
    DATABASE_URL: await createTestDatabase(),
    INTERNAL_AUTH_SECRET: randomBytes(32).toString("hex"),
    BOOTSTRAP_TOKEN: adminToken,
    OBJECT_STORE_ACCESS_KEY_ID: `HANGARTEST${randomBytes(5).toString("hex").toUpperCase()}`,
    OBJECT_STORE_SECRET_ACCESS_KEY: randomBytes(20).toString("hex"),
  });
  const ports: Ports = {};
  for (const component of Object.values(components)) {
    ports[component.name] = new Map(await Promise.all(component.ports.map(async (port) => [port, await freePort()] as const)));
  }
  const localPort = (component: string, containerPort: number) => ports[component]!.get(containerPort)!;
  const cluster = { KAFKA_BROKERS: requiredEnv("HANGAR_TEST_KAFKA_BROKERS"), KAFKA_NAMESPACE: `d${randomBytes(4).toString("hex")}` };
  const processes: Record<string, ComponentProcess> = {};
  for (const component of Object.values(components)) {
    processes[component.name] = componentProcess(localized(component, ports, path.join(root, component.name), cluster));
  }
  const close = async () => {
    for (const wave of [...START_WAVES].reverse()) await Promise.all(wave.map((name) => processes[name]!.stop()));
    await rm(root, { recursive: true, force: true });
  };
  try {
    for (const wave of START_WAVES) await Promise.all(wave.map((name) => processes[name]!.start()));
  } catch (error) {
    await close();
    throw error;
  }
  const url = `http://127.0.0.1:${localPort("gateway", 8080)}`;
  const objectStore = { location: { endpoint: `http://127.0.0.1:${localPort("object-store", 9000)}` } };
  return { url, admin: apiClient(url, adminToken), adminToken, objectStore, localPort, processes, close };
}

/** Each component's free loopback port by container port, in the manifest's order. */
type Ports = Record<string, Map<number, number>>;

/**
 * The container's environment for a process on this machine: a `*_PORT` naming one of its
 * container ports becomes that port's free loopback port, in-cluster URLs (`http://data:50051`;
 * `http://gateway`, the Service's port 80, is its first container port) point at the components'
 * ports on loopback, and volume mount paths become directories under `dir`.
 */
function localized(component: ManifestContainer, ports: Ports, dir: string, cluster: Record<string, string>): ManifestContainer {
  const own = ports[component.name]!;
  const mounts = new Map(component.mounts.map((mount) => [mount, path.join(dir, mount)]));
  for (const local of mounts.values()) mkdirSync(local, { recursive: true });
  const local = (name: string, value: string): string => {
    if (/PORT$/.test(name) && own.has(Number(value))) return String(own.get(Number(value)));
    const url = /^http:\/\/([a-z-]+)(?::(\d+))?$/.exec(value);
    const target = url ? ports[url[1]!] : undefined;
    if (url && target) return `http://127.0.0.1:${url[2] ? target.get(Number(url[2])) : [...target.values()][0]}`;
    const mount = [...mounts.keys()].find((m) => value === m || value.startsWith(`${m}/`));
    return mount ? mounts.get(mount)! + value.slice(mount.length) : value;
  };
  const env = Object.fromEntries(Object.entries(component.env).map(([name, value]) => [name, local(name, value)]));
  // The image's own environment (Dockerfile: NODE_ENV=production), and the tools of this machine.
  return { ...component, env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env, ...cluster } };
}

function componentProcess(component: ManifestContainer): ComponentProcess {
  let child: ChildProcess | undefined;
  let watchdog: ParentWatchdog | undefined;
  let output = "";
  const [command, ...args] = component.command;
  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill(signal);
    const late = setTimeout(() => running.kill("SIGKILL"), STOP_GRACE_MS);
    await exited;
    clearTimeout(late);
    watchdog?.release();
  };
  return {
    name: component.name,
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
    async start() {
      // `node` is this Node (the repository's, 24), as the image's is.
      const started = spawn(command === "node" ? process.execPath : command!, args, { cwd: REPO_ROOT, env: component.env, stdio: ["ignore", "pipe", "pipe"] });
      child = started;
      watchdog = killWithParent(started.pid!, "SIGKILL");
      const append = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_KEPT));
      started.stdout!.on("data", append);
      started.stderr!.on("data", append);
      await new Promise<void>((resolve, reject) => {
        const fail = (code: number | null) => reject(new Error(`${component.name} exited (${code}) before serving:\n${output.slice(-4000)}`));
        started.once("exit", fail);
        createInterface({ input: started.stdout! }).on("line", (line) => {
          if (!SERVING.test(line)) return;
          started.off("exit", fail);
          resolve();
        });
      });
    },
    output: () => output,
    pid: () => child?.pid,
  };
}
