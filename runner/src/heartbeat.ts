import { Code, ConnectError } from "@connectrpc/connect";
import type { ComputeClient } from "./compute-client";

/** Why a run must stop before its action is done. */
export type StopReason = "cancelled" | "lease lost" | "timed out" | "runner stopping";

/** A lease kept alive in the background. */
export interface Heartbeat {
  stop(): void;
}

/** Options of `startHeartbeat`. */
export interface HeartbeatOptions {
  compute: ComputeClient;
  leaseId: string;
  invocationId: string;
  intervalMs: number;
  /** Called once when the invocation ended elsewhere (`cancelled`) or the lease is gone (`lease lost`). */
  onStop(reason: StopReason): void;
  /** A renewal that failed for another reason (the service unreachable): the next one tries again. */
  onError(error: unknown): void;
}

/**
 * Renews the lease every `intervalMs`, which also records the invocation's heartbeat. Stops on
 * its own once the compute service says the invocation ended or the lease was lost.
 */
export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const renew = async () => {
    try {
      const renewed = await options.compute.renewLease({ leaseId: options.leaseId, invocationId: options.invocationId });
      if (renewed.cancelRequested) return end("cancelled");
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.FailedPrecondition) return end("lease lost");
      options.onError(error);
    }
    if (!stopped) timer = setTimeout(() => void renew(), options.intervalMs);
  };
  const end = (reason: StopReason) => {
    if (stopped) return;
    stopped = true;
    options.onStop(reason);
  };
  timer = setTimeout(() => void renew(), options.intervalMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
