import { AdminService } from "@hangar/shared/proto/admin";
import { ormUnitOfWork, startPeriodicTask, type Orm, type PeriodicTask, type ServiceDefinition, type SmtpConfig } from "@hangar/shared";
import { bootstrapIdentity, type BootstrapResult } from "./domain/bootstrap";
import { deliverPendingEmails } from "./domain/email-delivery";
import type { AdminUnitOfWork } from "./domain/repositories";
import { smtpMailer } from "./email/smtp-mailer";
import { commentMentionConsumer } from "./events/comment-mention-consumer";
import { dataMentionAccess } from "./events/mention-access";
import { usageConsumer } from "./events/usage-consumer";
import { createAdminServiceImpl } from "./rpc/admin-service";
import { adminRepositories } from "./store/admin-repositories";
import { adminEntities } from "./store/entities";
import { adminMigrations } from "./store/migrations";
import { notificationEntities } from "./store/notification-store";

export type { BootstrapResult };

/** Options of the admin service. */
export interface AdminServiceOptions {
  /** Secret of the bootstrap admin token (`BOOTSTRAP_TOKEN`). */
  bootstrapToken?: string;
  /** Receives what the first start created, to print it. */
  onBootstrap?: (result: BootstrapResult) => void;
  /** The SMTP server notification emails go through (`SMTP_*`); without it they fail (lifecycle `Failed`). */
  smtp?: SmtpConfig | undefined;
  /** How often pending notification emails are looked for (default 1 s). */
  emailIntervalMs?: number;
}

/**
 * The admin service: organizations, users, memberships, roles, API tokens, usage and
 * notifications. The one place the concrete stores are wired in: RPCs and start-up get a unit of
 * work over them, the consumers bind them to their own transactions. Notification emails go out
 * from a background task (see domain/email-delivery).
 */
export function adminService(options: AdminServiceOptions = {}): ServiceDefinition {
  let emails: PeriodicTask | undefined;
  let mentionAccess: ReturnType<typeof dataMentionAccess> | undefined;
  let closeMailer = () => {};
  return {
    name: "admin",
    entities: [...adminEntities, ...notificationEntities],
    migrations: adminMigrations,
    routes: (router, { orm, runtime }) =>
      router.service(AdminService, createAdminServiceImpl({ uow: unitOfWork(orm), internalAuthSecret: runtime.internalAuthSecret })),
    consumers: ({ runtime }) => {
      mentionAccess = dataMentionAccess(runtime);
      return [usageConsumer(adminRepositories), commentMentionConsumer(adminRepositories, mentionAccess.accessFor)];
    },
    async onStart({ orm, runtime }) {
      const result = await bootstrapIdentity(unitOfWork(orm), options.bootstrapToken, runtime.logger);
      if (result) options.onBootstrap?.(result);
      const mailer = options.smtp ? smtpMailer(options.smtp) : undefined;
      closeMailer = () => mailer?.close();
      const uow = unitOfWork(orm);
      emails = startPeriodicTask({ name: "notification email", intervalMs: options.emailIntervalMs ?? 1000, run: () => deliverPendingEmails(uow, mailer, runtime.logger), logger: runtime.logger });
    },
    async onStop() {
      await emails?.stop();
      closeMailer();
      mentionAccess?.close();
    },
  };
}

function unitOfWork(orm: Orm): AdminUnitOfWork {
  return ormUnitOfWork(orm, adminRepositories);
}
