import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { requiredEnv } from "./database";

/** One message the test SMTP sink received: its envelope, headers and decoded text body. */
export interface ReceivedEmail {
  mail_from: string;
  rcpt_tos: string[];
  from: string;
  to: string;
  subject: string;
  text: string;
}

/**
 * The messages the test SMTP sink (started by the global setup, test/src/smtp.mjs) received for
 * `recipient`, oldest first. Every test file's platform sends there, so tests tell theirs apart
 * by recipient (the tenants' user ids are unique).
 */
export async function receivedEmails(recipient: string): Promise<ReceivedEmail[]> {
  const mailbox = requiredEnv("HANGAR_TEST_SMTP_MAILBOX");
  const names = (await readdir(mailbox)).filter((name) => name.endsWith(".json")).sort(byArrival);
  const messages = await Promise.all(names.map(async (name) => JSON.parse(await readFile(path.join(mailbox, name), "utf8")) as ReceivedEmail));
  return messages.filter((message) => message.rcpt_tos.includes(recipient));
}

// Names are `<arrival ns>-<n>.json`: compared as numbers, since text would misorder them where the digits grow.
function byArrival(a: string, b: string): number {
  const [x, y] = [a, b].map((name) => name.slice(0, -".json".length).split("-").map(BigInt));
  return x![0]! !== y![0]! ? (x![0]! < y![0]! ? -1 : 1) : Number(x![1]! - y![1]!);
}
