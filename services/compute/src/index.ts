import type { ServiceDefinition } from "@hangar/shared";
import { ComputeService } from "@hangar/shared/proto/compute";
import { createActionHandlers } from "./rpc/action-handlers";
import { createInvocationHandlers } from "./rpc/invocation-handlers";
import { createRunnerHandlers } from "./rpc/runner-handlers";
import { createTriggerHandlers } from "./rpc/trigger-handlers";
import { computeEntities } from "./store/entities";
import { computeMigrations } from "./store/migrations";

/** The compute service: actions, invocations, triggers and the runner protocol. */
export function computeService(): ServiceDefinition {
  return {
    name: "compute",
    entities: [...computeEntities],
    migrations: computeMigrations,
    routes: (router, context) =>
      router.service(ComputeService, {
        ...createActionHandlers(context),
        ...createInvocationHandlers(context),
        ...createTriggerHandlers(context),
        ...createRunnerHandlers(context),
      }),
  };
}
