import { createTransport } from "nodemailer";
import type { SmtpConfig } from "@hangar/shared";
import type { Mailer } from "../domain/email-delivery";

/** A Mailer over SMTP (nodemailer) with the config table's settings; close() ends its connections. */
export function smtpMailer(settings: SmtpConfig): Mailer & { close(): void } {
  const transport = createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    ...(settings.user !== undefined ? { auth: { user: settings.user, pass: settings.password ?? "" } } : {}),
  });
  return {
    async send(message) {
      await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text });
    },
    close: () => transport.close(),
  };
}
