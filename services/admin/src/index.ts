import { AdminService } from "@hangar/shared/proto/admin";
import type { ServiceDefinition } from "@hangar/shared";
import { bootstrapIdentity, type BootstrapResult } from "./domain/bootstrap";
import { usageConsumer } from "./events/usage-consumer";
import { adminEntities } from "./store/entities";
import { adminMigrations } from "./store/migrations";
import { createAdminServiceImpl } from "./rpc/admin-service";

export type { BootstrapResult };

/** Options of the admin service. */
export interface AdminServiceOptions {
  /** Secret of the bootstrap admin token (`BOOTSTRAP_TOKEN`). */
  bootstrapToken?: string;
  /** Receives what the first start created, to print it. */
  onBootstrap?: (result: BootstrapResult) => void;
}

/** The admin service: organizations, users, memberships, roles, API tokens and usage. */
export function adminService(options: AdminServiceOptions = {}): ServiceDefinition {
  return {
    name: "admin",
    entities: adminEntities,
    migrations: adminMigrations,
    routes: (router, { orm, runtime }) => router.service(AdminService, createAdminServiceImpl({ orm, internalAuthSecret: runtime.internalAuthSecret })),
    consumers: () => [usageConsumer],
    async onStart({ orm, runtime }) {
      const result = await bootstrapIdentity(orm, options.bootstrapToken, runtime.logger);
      if (result) options.onBootstrap?.(result);
    },
  };
}
