// Downloads the jars of a Kafka broker from Maven Central into a cache folder, once.
// Shared by scripts/fetch-kafka.mjs (CI install step) and test/src/kafka.mjs (test setup).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../..");
const pomPath = path.join(here, "pom.xml");

/** The Kafka version, read from pom.xml so that the version lives in one place. */
export const KAFKA_VERSION = readFileSync(pomPath, "utf8").match(/<kafka\.version>([^<]+)</)[1];

/** The folder the jars go to: `KAFKA_CACHE_DIR` when set, else `<repo>/.cache/kafka-<version>/libs`. */
export function kafkaLibsDir() {
  return path.resolve(process.env.KAFKA_CACHE_DIR || path.join(repoRoot, ".cache", `kafka-${KAFKA_VERSION}`, "libs"));
}

const hasKafkaJar = (dir) => existsSync(path.join(dir, `kafka_2.13-${KAFKA_VERSION}.jar`));

/**
 * Makes sure the broker jars are in kafkaLibsDir() and returns that folder. Downloads with Maven
 * only when the folder lacks the kafka jar; the download goes to a temporary sibling folder that is
 * renamed into place, so an interrupted or concurrent run never leaves a half-filled cache.
 */
export function ensureKafkaJars({ log = () => {} } = {}) {
  const libs = kafkaLibsDir();
  if (hasKafkaJar(libs)) {
    log(`kafka ${KAFKA_VERSION}: jars already in ${libs}`);
    return { libs, downloaded: false };
  }
  const staging = `${libs}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  log(`kafka ${KAFKA_VERSION}: downloading jars with Maven into ${libs}`);
  const mvn = spawnSync(
    "mvn",
    [
      "-q", "-B", "-f", pomPath,
      "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies",
      `-DoutputDirectory=${staging}`, "-DincludeScope=runtime",
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  if (mvn.error || mvn.status !== 0 || !hasKafkaJar(staging)) {
    rmSync(staging, { recursive: true, force: true });
    const why = mvn.error ? mvn.error.message : `mvn exited with ${mvn.status ?? mvn.signal}`;
    throw new Error(`could not download the Kafka ${KAFKA_VERSION} jars (${why}; Maven 3 and Maven Central are needed):\n${`${mvn.stdout ?? ""}${mvn.stderr ?? ""}`.trim()}`);
  }
  if (hasKafkaJar(libs)) {
    rmSync(staging, { recursive: true, force: true }); // another process finished first
  } else {
    if (existsSync(libs)) {
      // an older version's jars: replace them, but never a folder that holds anything besides jars
      if (readdirSync(libs).some((name) => !name.endsWith(".jar"))) {
        rmSync(staging, { recursive: true, force: true });
        throw new Error(`${libs} holds files other than jars; point KAFKA_CACHE_DIR at a folder of its own`);
      }
      rmSync(libs, { recursive: true, force: true });
    }
    try {
      renameSync(staging, libs);
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      if (!hasKafkaJar(libs)) throw err; // else another process renamed its copy in first
    }
  }
  log(`kafka ${KAFKA_VERSION}: ${readdirSync(libs).length} jars in ${libs}`);
  return { libs, downloaded: true };
}
