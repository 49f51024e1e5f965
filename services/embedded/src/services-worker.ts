import { parentPort, workerData } from "node:worker_threads";
import { openObjectStore } from "@hangar/data";
import { createInProcessTransport, createKafkaTransport, createLogger, initTelemetry } from "@hangar/shared";
import { startServices } from "./platform";
import type { ServicesWorkerData, ServicesWorkerReady } from "./services-in-worker";

/**
 * Worker-thread entry of the embedded default: runs the five services (and their event delivery)
 * on an event loop of their own, so that the gateway and the services use two cores.
 */
async function run(data: ServicesWorkerData): Promise<void> {
  initTelemetry("hangar");
  const logger = createLogger("hangar", data.logLevel);
  const transport = data.kafkaBrokers.length
    ? createKafkaTransport({ brokers: data.kafkaBrokers, clientId: "hangar", logger })
    : createInProcessTransport();
  const objectStore = await openObjectStore(data.objectStore);
  const started = await startServices({
    objectStore,
    databaseUrl: data.databaseUrl,
    internalAuthSecret: data.internalAuthSecret,
    transport,
    logger,
    ...(data.bootstrapToken ? { bootstrapToken: data.bootstrapToken } : {}),
    compute: data.compute,
    data: { exportRetentionMs: data.exportRetentionMs },
  });
  parentPort!.on("message", (message: unknown) => {
    if (message !== "close") return;
    void started
      .close()
      .then(() => transport.close())
      .then(() => objectStore.close())
      .then(() => parentPort!.postMessage("closed"));
  });
  const ready: ServicesWorkerReady = { urls: started.urls, bootstrap: started.bootstrap, objectStoreEndpoint: objectStore.location.endpoint };
  parentPort!.postMessage(ready);
}

run(workerData as ServicesWorkerData).catch((error: unknown) => {
  // Surfaces in the main thread's 'error' handler with the stack intact.
  throw error;
});
