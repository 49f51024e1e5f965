import { runServiceMain } from "@hangar/shared";
import { adminService } from "./index";

runServiceMain((config) =>
  adminService({
    ...(config.bootstrapToken ? { bootstrapToken: config.bootstrapToken } : {}),
    smtp: config.smtp,
    onBootstrap: (result) =>
      process.stdout.write(`First start: org ${result.orgId}, admin '${result.userId}', admin API token: ${result.token}\n`),
  }),
);
