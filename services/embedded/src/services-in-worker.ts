import path from "node:path";
import { Worker } from "node:worker_threads";
import type { BootstrapResult } from "@hangar/admin";
import type { ComputeServiceOptions } from "@hangar/compute";
import type { ObjectStoreConfig } from "@hangar/data";
import type { ServiceName } from "@hangar/shared";

/** What the services worker needs: plain data, since it crosses a thread boundary. */
export interface ServicesWorkerData {
  databaseUrl: string;
  internalAuthSecret: string;
  bootstrapToken?: string;
  kafkaBrokers: string[];
  logLevel: string;
  objectStore: ObjectStoreConfig;
  compute: ComputeServiceOptions;
  exportRetentionMs: number;
}

/** The worker's answer once every service listens. */
export interface ServicesWorkerReady {
  urls: Record<ServiceName, string>;
  /** Where S3 clients reach the object store. */
  objectStoreEndpoint: string | undefined;
  bootstrap: BootstrapResult | undefined;
}

/** Services running in a worker thread. */
export interface WorkerServices extends ServicesWorkerReady {
  close(): Promise<void>;
}

/**
 * Starts the five services in a worker thread of this process. Node runs JavaScript on one core
 * per thread; with the services on their own thread, the gateway and the services no longer wait
 * for each other's CPU. They still talk gRPC over loopback, as in a distributed deployment.
 */
export function startServicesInWorker(data: ServicesWorkerData): Promise<WorkerServices> {
  const worker = new Worker(path.join(__dirname, "services-worker.js"), { workerData: data });
  return new Promise((resolve, reject) => {
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`services worker exited with code ${code}`)));
    worker.once("message", (ready: ServicesWorkerReady) => {
      worker.removeAllListeners("exit");
      resolve({
        ...ready,
        close: () =>
          new Promise<void>((done) => {
            worker.once("message", () => void worker.terminate().then(() => done()));
            worker.postMessage("close");
          }),
      });
    });
  });
}
