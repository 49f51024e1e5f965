// Starts a real SMTP server (aiosmtpd, from PyPI) that keeps every message it receives, for the
// tests of notification emails, since these machines run no mail server. See scripts/install-smtp-sink.sh.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./ports.mjs";
import { ensureVenv, venvDir } from "./venvs.mjs";

const AIOSMTPD_VERSION = "1.4.6"; // keep in step with scripts/install-smtp-sink.sh
const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

/** The virtualenv that scripts/install-smtp-sink.sh fills: `$HANGAR_SMTP_SINK_VENV` or `<repo>/.cache/smtp-sink-venv`. */
export function smtpSinkVenv() {
  return venvDir("HANGAR_SMTP_SINK_VENV", "smtp-sink-venv");
}

// The sink: each message it accepts becomes one JSON file in the mailbox directory (envelope,
// headers and the decoded text body), written under a temporary name and renamed, so a reader never
// sees half a message. It exits when its stdin reaches end of file: stop() closes our end, and so
// does the kernel when this Node process dies.
const SINK = `import itertools, json, os, sys, time
from email import message_from_bytes, policy
from aiosmtpd.controller import Controller
mailbox, port = sys.argv[1], int(sys.argv[2])
counter = itertools.count()
class Sink:
    async def handle_DATA(self, server, session, envelope):
        message = message_from_bytes(envelope.original_content or envelope.content, policy=policy.default)
        body = message.get_body(preferencelist=("plain",))
        record = {"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos, "from": str(message["from"]), "to": str(message["to"]),
                  "subject": str(message["subject"]), "text": body.get_content() if body else ""}
        name = os.path.join(mailbox, "%d-%d" % (time.time_ns(), next(counter)))
        with open(name + ".tmp", "w") as out:
            json.dump(record, out)
        os.rename(name + ".tmp", name + ".json")
        return "250 OK"
controller = Controller(Sink(), hostname="127.0.0.1", port=port)
controller.start()
print("ready", flush=True)
while sys.stdin.buffer.read(65536):
    pass
controller.stop()`;

/**
 * Starts the SMTP sink on a free loopback port, installing aiosmtpd first when the cached
 * virtualenv lacks it, and resolves once it listens. Returns `{ host, port, mailbox, stop }`:
 * `mailbox` is the directory of received messages (one JSON file each); stop() ends the server and
 * waits for it to exit.
 */
export async function startSmtpSink() {
  ensureVenv({ what: "aiosmtpd", variable: "HANGAR_SMTP_SINK_VENV", name: "smtp-sink-venv", marker: `.hangar-aiosmtpd-${AIOSMTPD_VERSION}`, script: "install-smtp-sink.sh" });
  const port = await freePort();
  const mailbox = mkdtempSync(path.join(tmpdir(), "hangar-mailbox-"));
  const child = spawn(path.join(smtpSinkVenv(), "bin", "python"), ["-c", SINK, mailbox, String(port)], { stdio: ["pipe", "pipe", "pipe"] });
  const output = [];
  child.stderr.on("data", (chunk) => output.push(chunk.toString()));
  const exited = new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ?? code));
    child.once("error", (err) => resolve(err.message));
  });
  for (const handle of [child, child.stdin, child.stdout, child.stderr]) handle.unref();
  const onExit = () => child.kill("SIGKILL");
  process.once("exit", onExit);
  let stopped;
  const stop = () =>
    (stopped ??= (async () => {
      child.stdin.destroy();
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
      process.removeListener("exit", onExit);
    })());
  const ready = new Promise((resolve) => child.stdout.on("data", (chunk) => chunk.toString().includes("ready") && resolve("ready")));
  // A timer of ours, not unref'd: it keeps this process waiting for the sink, whose handles are.
  let timer;
  const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve("timeout"), START_TIMEOUT_MS)));
  const outcome = await Promise.race([ready, exited.then((how) => `exited (${how})`), timeout]);
  clearTimeout(timer);
  if (outcome !== "ready") {
    await stop();
    throw new Error(`the SMTP sink did not start: ${outcome}\n${output.join("")}`.trimEnd());
  }
  return { host: "127.0.0.1", port, mailbox, stop };
}
