// Starts a real single-node Apache Kafka broker (KRaft mode, jars from Maven Central) for the test
// run, since these machines have no Docker. See DESIGN.md, "Test infrastructure on these machines".
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureKafkaJars } from "../kafka/jars.mjs";
import { freePort } from "./ports.mjs";

const START_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 5_000;
const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, "bin", "java") : "java";
// Small heap, quick start-up (C1 only, Serial GC): a test broker handles little traffic.
const JVM_ARGS = ["-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true"];

// Runs java (the broker) and SIGTERMs it when our end of its stdin pipe closes: stop() closes it,
// and so does the kernel when this Node process dies without running exit handlers (SIGKILL, crash,
// Ctrl-C). Java cannot notice that itself, and Node has no "kill the child when I die" option.
const WATCHDOG = `exec 3<&0 </dev/null
"$0" "$@" 3<&- &
pid=$!
(cat <&3 >/dev/null; kill $pid 2>/dev/null) &
wait $pid`;

const tail = (file, lines = 30) =>
  existsSync(file) ? readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n") : "";

/**
 * Starts a single-node KRaft broker on free loopback ports in a fresh temp dir and resolves once it
 * is ready, so tests run against a real Kafka. Broker logs go to files in `logDir` (default: the temp
 * dir); `port` fixes the client port (for tests that start the broker where a platform already
 * looks). Returns `{ brokers: "127.0.0.1:<port>", stop, halt, resume, timings, logFile }`; stop() stops
 * the broker (SIGTERM, SIGKILL after 5 s) and removes the temp dir; halt() kills it (SIGKILL) and
 * resume() starts it again on the same port and data. The broker also dies when this process does.
 */
export async function startKafka({ logDir, port: fixedPort } = {}) {
  const timings = {};
  let t = performance.now();
  const { libs, downloaded } = ensureKafkaJars();
  Object.assign(timings, { downloaded, fetchMs: Math.round(performance.now() - t) });
  const classpath = path.join(libs, "*");

  const dir = await mkdtemp(path.join(tmpdir(), "hangar-kafka-"));
  const port = fixedPort ?? (await freePort());
  let controllerPort;
  do controllerPort = await freePort();
  while (controllerPort === port);
  if (logDir) mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir ?? dir, `kafka-${port}.log`); // log4j output
  const outFile = path.join(logDir ?? dir, `kafka-${port}.out`); // JVM stdout and stderr
  const props = path.join(dir, "server.properties");
  const log4j = path.join(dir, "log4j.properties");
  writeFileSync(
    props,
    `process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${controllerPort}
listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${port}
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=${path.join(dir, "data")}
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
group.initial.rebalance.delay.ms=0
`,
  );
  writeFileSync(
    log4j,
    `log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=${logFile}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
`,
  );
  const jvm = [...JVM_ARGS, `-Dlog4j.configuration=file:${log4j}`, "-cp", classpath];

  t = performance.now();
  let clusterId; // an id starting with "-" would be read as an option (1 run in 64), as Kafka's own Uuid avoids
  do clusterId = randomBytes(16).toString("base64url");
  while (clusterId.startsWith("-"));
  const format = spawnSync(java, [...jvm, "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", props, "--ignore-formatted"], {
    encoding: "utf8",
  });
  if (format.error || format.status !== 0) {
    const output = `${format.stdout ?? ""}${format.stderr ?? ""}\n${tail(logFile)}`;
    await rm(dir, { recursive: true, force: true });
    throw new Error(`kafka storage format failed: ${format.error?.message ?? ""}\n${output}`.trimEnd());
  }
  // start the broker's logs afresh: a reused logDir must not look ready, and the format logs are noise
  for (const file of [logFile, outFile]) writeFileSync(file, "");
  timings.formatMs = Math.round(performance.now() - t);

  t = performance.now();
  const args = [...jvm, "kafka.Kafka", props];
  let broker = launchBroker(args, outFile); // replaced by resume() after halt()
  const onExit = () => {
    broker.killGroup();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", onExit);

  let stopped;
  const stop = () =>
    (stopped ??= (async () => {
      await broker.terminate();
      process.removeListener("exit", onExit);
      await rm(dir, { recursive: true, force: true });
    })());

  try {
    await brokerReady(broker, logFile, outFile);
  } catch (err) {
    await stop();
    throw err;
  }
  timings.startMs = Math.round(performance.now() - t);
  // For fault tests: a kill -9 of the broker, and a start again on the same port and data.
  const halt = async () => {
    broker.killGroup();
    await broker.exited;
  };
  const resume = async () => {
    writeFileSync(logFile, ""); // readiness is read from the log: the last start's must not count
    broker = launchBroker(args, outFile);
    await brokerReady(broker, logFile, outFile);
  };
  return { brokers: `127.0.0.1:${port}`, stop, halt, resume, timings, logFile };
}

/** Starts the broker JVM under the watchdog; `terminate` asks it to stop (SIGKILL after 5 s). */
function launchBroker(args, outFile) {
  const out = openSync(outFile, "a");
  // detached: the broker gets its own process group, so stop() can SIGKILL the JVM and the watchdog
  const child = spawn("sh", ["-c", WATCHDOG, java, ...args], {
    detached: true,
    stdio: ["pipe", out, out],
  });
  closeSync(out);
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
  const killGroup = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {} // already gone
  };
  const terminate = async () => {
    child.stdin.destroy(); // the watchdog sends SIGTERM to the broker
    const timer = setTimeout(killGroup, STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    killGroup(); // the watchdog's subshell, if it outlived the broker
  };
  return { exited, killGroup, terminate };
}

/** Resolves once the broker logs that it started; rejects if it exits first or takes too long. */
function brokerReady(broker, logFile, outFile) {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const fail = (why) => {
      clearInterval(poll);
      reject(new Error(`kafka broker ${why}; last log lines:\n${tail(logFile)}\n${tail(outFile, 10)}`.trimEnd()));
    };
    const poll = setInterval(() => {
      if (existsSync(logFile) && readFileSync(logFile, "utf8").includes("Kafka Server started")) {
        clearInterval(poll);
        resolve();
      } else if (performance.now() - t > START_TIMEOUT_MS) fail(`did not start within ${START_TIMEOUT_MS / 1000} s`);
    }, 100);
    broker.exited.then((how) => fail(`exited during start-up (${how})`));
  });
}

/**
 * Returns `{ brokers, stop }` for the broker in `KAFKA_BROKERS` when set (stop does nothing), else
 * starts one with startKafka(options). Lets CI or a developer point the tests at an existing broker.
 */
export async function kafkaFromEnvOrStart(options) {
  if (process.env.KAFKA_BROKERS) return { brokers: process.env.KAFKA_BROKERS, stop: async () => {} };
  return startKafka(options);
}
