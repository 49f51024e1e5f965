#!/usr/bin/env node
// Fetches the Kafka broker jars the tests run (no Docker on these machines) into the cache folder:
// `<repo>/.cache/kafka-<version>/libs`, or $KAFKA_CACHE_DIR. Does nothing when they are already
// there. Run by CI's install step: `node scripts/fetch-kafka.mjs`. Needs Java 17+ and Maven 3.
import { ensureKafkaJars } from "../test/kafka/jars.mjs";

try {
  ensureKafkaJars({ log: (line) => console.log(line) });
} catch (err) {
  console.error(`fetch-kafka: ${err.message}`);
  process.exit(1);
}
