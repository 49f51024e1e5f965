// Benchmark: the built-in MCAP ingestion engine (issue 12, "Speed"). Run with `npm run build && node
// bench/mcap-ingest.mjs` (or through `npm run bench`). The first run writes the input once and caches
// it under .cache/bench/: a 1 GiB MCAP of 20 channels and 10 million messages (BENCH_QUICK=1: 64 MiB,
// 600,000), in 1 MiB zstd chunks with the summary and indexes, as ROS 2 bags and the MCAP writers
// record (zstd is what those default to, and Node's zlib has it built in; lz4 is the other option the
// npm packages support, and reading it is covered by the specs).
//
// Then, in the same run, alternating, each in a fresh process so its peak RSS is its own:
// - the anchor: bare @mcap/core, McapIndexedReader.readMessages() into one McapWriter per channel
//   (zstd at the engine's level, -3; McapWriter's default 1 MiB chunks), no platform;
// - ingestMcap from ingest/dist into a directory sink.
// Figures: MB/s of input, time relative to the anchor, peak RSS; best of the rounds for each (the
// machine is shared, and the best run is the one least disturbed), with the load average.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { constants, zstdCompressSync, zstdDecompressSync } from "node:zlib";
import { createReport, loadAverage, sized } from "./report.mjs";

const require = createRequire(import.meta.url);
const CHANNELS = 20;
const MESSAGES = sized(10_000_000, 600_000);
const TARGET_BYTES = sized(1024 ** 3, 64 * 1024 ** 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(2, 3));
const CACHE = path.resolve(".cache/bench");
const INPUT = path.join(CACHE, `mcap-ingest-${CHANNELS}ch-${MESSAGES}.mcap`);
const GOAL_MBPS = 200;
const GOAL_RATIO = 1.25;
const GOAL_RSS_MB = 256;
const ENGINE_ZSTD = { params: { [constants.ZSTD_c_compressionLevel]: -3 } }; // as ingest/src/compression.ts

if (process.argv[2] === "--phase") {
  await runPhase(process.argv[3], process.argv[4], process.argv[5]);
} else {
  await main();
}

async function main() {
  const { McapWriter } = require("@mcap/core");
  if (!existsSync(INPUT)) await generate(McapWriter);
  const size = statSync(INPUT).size;
  console.log(`input: ${INPUT} (${(size / 1024 ** 2).toFixed(0)} MiB, ${MESSAGES.toLocaleString("en-US")} messages on ${CHANNELS} channels); load average ${loadAverage()}`);
  const report = createReport("mcap-ingest");
  const best = { anchor: undefined, ingest: undefined };
  await report.attempt("runs", async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const phase of ["anchor", "ingest"]) {
        const figures = measure(phase);
        console.log(`round ${round} ${phase}: ${figures.seconds.toFixed(2)} s (${figures.cpuSeconds.toFixed(2)} s of CPU), ${mbps(size, figures.seconds).toFixed(0)} MB/s, peak RSS ${figures.rssMb.toFixed(0)} MB (load ${loadAverage()})`);
        if (!best[phase] || figures.seconds < best[phase].seconds) best[phase] = figures;
      }
    }
  });
  if (best.anchor && best.ingest) {
    const anchorRate = mbps(size, best.anchor.seconds);
    report.add("anchor: bare @mcap/core read + per-topic McapWriter, MB/s", anchorRate, "MB/s");
    report.add("anchor: peak RSS", best.anchor.rssMb, "MB");
    report.add("ingestMcap: MB/s of input", mbps(size, best.ingest.seconds), "MB/s", { goal: { min: GOAL_MBPS } });
    report.add("ingestMcap: time relative to the anchor", best.ingest.seconds / best.anchor.seconds, "×", { goal: { max: GOAL_RATIO } });
    report.add("ingestMcap: peak RSS", best.ingest.rssMb, "MB", { goal: { max: GOAL_RSS_MB } });
    // CPU time of all the process's threads: what the work costs, whatever the machine's load.
    report.add("ingestMcap: CPU seconds (all threads)", best.ingest.cpuSeconds, "s", { anchor: { name: "anchor", value: best.anchor.cpuSeconds } });
    report.add("ingestMcap: MB of input per CPU second", mbps(size, best.ingest.cpuSeconds), "MB/s");
  }
  report.print();
}

/** Runs one phase in a child process; returns its seconds and peak RSS. */
function measure(phase) {
  const out = path.join(CACHE, `mcap-ingest-out-${phase}`);
  rmSync(out, { recursive: true, force: true });
  const child = spawnSync(process.execPath, [import.meta.filename, "--phase", phase, INPUT, out], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  rmSync(out, { recursive: true, force: true });
  if (child.status !== 0) throw new Error(`${phase} exited with ${child.status ?? child.signal}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1));
}

async function runPhase(phase, input, out) {
  const started = performance.now();
  if (phase === "anchor") await anchor(input, out);
  else {
    const { ingestMcap, openFileSource, createDirectorySink } = require("../ingest/dist/index.js");
    const source = await openFileSource(input);
    await ingestMcap(source, createDirectorySink(out));
    await source.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
  console.log(JSON.stringify({ seconds, cpuSeconds: (userCPUTime + systemCPUTime) / 1e6, rssMb: maxRSS / 1024 }));
}

/** The bare anchor: what a developer writes with @mcap/core alone to split a file by channel. */
async function anchor(input, out) {
  const { McapIndexedReader, McapWriter } = require("@mcap/core");
  mkdirSync(out, { recursive: true });
  const handle = await open(input, "r");
  const readable = {
    size: async () => BigInt((await handle.stat()).size),
    read: async (offset, length) => {
      const buffer = Buffer.allocUnsafe(Number(length));
      await handle.read(buffer, 0, buffer.byteLength, Number(offset));
      return buffer;
    },
  };
  const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers: { zstd: (data, size) => zstdDecompressSync(data, { maxOutputLength: Number(size) }) } });
  const writers = new Map();
  for (const channel of reader.channelsById.values()) {
    const file = await open(path.join(out, `channel-${channel.id}.mcap`), "w");
    let position = 0n;
    const writable = { position: () => position, write: async (buffer) => { position += BigInt(buffer.byteLength); await file.write(buffer); } };
    const writer = new McapWriter({ writable, chunkSize: 1024 * 1024, compressChunk: (data) => ({ compression: "zstd", compressedData: zstdCompressSync(data, ENGINE_ZSTD) }) });
    await writer.start(reader.header);
    const schema = reader.schemasById.get(channel.schemaId);
    const schemaId = schema ? await writer.registerSchema(schema) : 0;
    const channelId = await writer.registerChannel({ ...channel, schemaId });
    writers.set(channel.id, { writer, file, channelId });
  }
  for await (const message of reader.readMessages()) {
    const { writer, channelId } = writers.get(message.channelId);
    await writer.addMessage({ ...message, channelId });
  }
  for (const { writer, file } of writers.values()) {
    await writer.end();
    await file.close();
  }
  await handle.close();
}

/**
 * Writes the input: 20 ROS 2 channels (CDR payloads of 40 to 120 bytes, half noise and half slowly
 * varying fields, so chunks compress about as much as real sensor data), messages interleaved in
 * log-time order, 1 MiB zstd chunks. Written to a temporary name and renamed, so an interrupted
 * run leaves no half file in the cache.
 */
async function generate(McapWriter) {
  console.log(`generating ${INPUT} (once; cached) ...`);
  mkdirSync(CACHE, { recursive: true });
  const partial = `${INPUT}.partial`;
  const file = await open(partial, "w");
  let position = 0n;
  const writable = { position: () => position, write: async (buffer) => { position += BigInt(buffer.byteLength); await file.write(buffer); } };
  const writer = new McapWriter({ writable, chunkSize: 1024 * 1024, compressChunk: (data) => ({ compression: "zstd", compressedData: zstdCompressSync(data) }) });
  await writer.start({ profile: "ros2", library: "hangar-bench" });
  const channels = [];
  for (let i = 0; i < CHANNELS; i++) {
    const schemaId = await writer.registerSchema({ name: `bench_msgs/msg/Sensor${i}`, encoding: "ros2msg", data: new TextEncoder().encode("int32 sec\nuint32 nanosec\nfloat64[] values\nuint8[] raw\n") });
    channels.push(await writer.registerChannel({ schemaId, topic: `/sensor_${i}`, messageEncoding: "cdr", metadata: new Map() }));
  }
  const noise = randomBytes(64 * 1024 * 1024);
  const payloadSize = Math.round((TARGET_BYTES / MESSAGES) * 1.2);
  for (let i = 0; i < MESSAGES; i++) {
    const size = payloadSize - 40 + ((i * 7919) % 81);
    const data = Buffer.alloc(size);
    data.writeUInt32LE(Math.floor(i / 1000), 4);
    data.writeUInt32LE(i % 1000, 8);
    const noiseFrom = 12 + Math.floor(size / 3);
    const noiseAt = (i * 104_729) % (noise.byteLength - size);
    noise.copy(data, noiseFrom, noiseAt, noiseAt + size - noiseFrom);
    await writer.addMessage({ channelId: channels[i % CHANNELS], sequence: i, logTime: 1_700_000_000_000_000_000n + BigInt(i) * 10_000n, publishTime: 0n, data });
  }
  await writer.end();
  await file.close();
  renameSync(partial, INPUT);
}

function mbps(bytes, seconds) {
  return bytes / 1e6 / seconds;
}
