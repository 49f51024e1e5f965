import { AdminService } from "@hangar/shared/proto/admin";
import { ormUnitOfWork, type Orm, type ServiceDefinition } from "@hangar/shared";
import { bootstrapIdentity, type BootstrapResult } from "./domain/bootstrap";
import type { AdminUnitOfWork } from "./domain/repositories";
import { usageConsumer } from "./events/usage-consumer";
import { createAdminServiceImpl } from "./rpc/admin-service";
import { adminRepositories } from "./store/admin-repositories";
import { adminEntities } from "./store/entities";
import { adminMigrations } from "./store/migrations";

export type { BootstrapResult };

/** Options of the admin service. */
export interface AdminServiceOptions {
  /** Secret of the bootstrap admin token (`BOOTSTRAP_TOKEN`). */
  bootstrapToken?: string;
  /** Receives what the first start created, to print it. */
  onBootstrap?: (result: BootstrapResult) => void;
}

/**
 * The admin service: organizations, users, memberships, roles, API tokens and usage. The one place
 * the concrete stores are wired in: RPCs and start-up get a unit of work over them, the consumer
 * binds them to its own transaction.
 */
export function adminService(options: AdminServiceOptions = {}): ServiceDefinition {
  return {
    name: "admin",
    entities: adminEntities,
    migrations: adminMigrations,
    routes: (router, { orm, runtime }) =>
      router.service(AdminService, createAdminServiceImpl({ uow: unitOfWork(orm), internalAuthSecret: runtime.internalAuthSecret })),
    consumers: () => [usageConsumer(adminRepositories)],
    async onStart({ orm, runtime }) {
      const result = await bootstrapIdentity(unitOfWork(orm), options.bootstrapToken, runtime.logger);
      if (result) options.onBootstrap?.(result);
    },
  };
}

function unitOfWork(orm: Orm): AdminUnitOfWork {
  return ormUnitOfWork(orm, adminRepositories);
}
