// First: relaunches the process with the platform's V8 flags before anything else loads.
import "@hangar/shared/node-flags";
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
