// Benchmark: the built-in MCAP ingestion engine (issue 12, "Speed"). Run with `npm run build && node
// bench/mcap-ingest.mjs` (or through `npm run bench`). The first run writes the input once and caches
// it under .cache/bench/: a 1 GiB MCAP of 20 channels and 10 million messages (BENCH_QUICK=1: 64 MiB,
// 600,000), in 1 MiB zstd chunks with the summary and indexes, as ROS 2 bags and the MCAP writers
// record (zstd is what those default to, and Node's zlib has it built in; lz4 is the other option the
// npm packages support, and reading it is covered by the specs).
//
// Then, in the same run, alternating, each in a fresh process so its peak RSS is its own:
// - the anchor: bare @mcap/core, McapIndexedReader.readMessages() into one McapWriter per channel
//   (zstd at the engine's level, -7; McapWriter's default 1 MiB chunks), no platform;
// - ingestMcap from ingest/dist into a directory sink.
// Figures: MB/s of input, time relative to the anchor, peak RSS; best of the rounds for each (the
// machine is shared, and the best run is the one least disturbed), with the load average; CPU
// seconds per GiB of input and MB of input per CPU second, which the machine's load moves far less,
// by thread: main, the zstd workers, libuv's pool (file I/O), V8's helpers.
// Then the parts of the work, each alone over the whole input, in CPU seconds per GiB of input (of
// the whole process, so a part run on the engine's zstd worker counts the worker's time and the
// messages to it): zstd decompression (zstdDecompressSync beside the engine's worker, their output
// compared), the input chunk CRC, framing the records by hand (the engine's loop) beside
// @mcap/core's McapStreamReader, copying messages into per-channel chunks with Buffer.copy beside
// set(subarray()), zstd recompression of 512 KiB derived chunks at the engine's level (zstdCompressSync
// beside the engine's worker, output compared) and other levels (with the compression ratio each
// gives), and the CRC of those chunks, which the engine does not compute. With BENCH_ZSTD_NAPI set
// (see zstdNapi below), the same decompression and recompression through the zstd-napi library.
import "./pinned-node.mjs";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
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
const ENGINE_LEVEL = -7; // as ingest/src/compression.ts
const ENGINE_ZSTD = { params: { [constants.ZSTD_c_compressionLevel]: ENGINE_LEVEL } };
const OTHER_LEVELS = [1, -3, -5]; // measured beside the engine's in the parts phase
const DERIVED_CHUNK = 512 * 1024; // as ingest/src/ingest-mcap.ts

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
        const threads = Object.entries(figures.threads).map(([kind, seconds]) => `${kind} ${seconds.toFixed(1)}`).join(", ");
        console.log(`round ${round} ${phase}: ${figures.seconds.toFixed(2)} s (${figures.cpuSeconds.toFixed(2)} s of CPU: ${threads}), ${mbps(size, figures.seconds).toFixed(0)} MB/s, peak RSS ${figures.rssMb.toFixed(0)} MB (load ${loadAverage()})`);
        if (!best[phase] || figures.seconds < best[phase].seconds) best[phase] = figures;
      }
    }
  });
  let parts;
  await report.attempt("parts", async () => {
    parts = measureParts();
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
    report.add("ingestMcap: CPU seconds per GiB of input", perGiB(size, best.ingest.cpuSeconds), "s", { anchor: { name: "anchor", value: perGiB(size, best.anchor.cpuSeconds) } });
    // On two idle cores the run takes at least the main thread's CPU time, a zstd worker's, and half the total.
    const { main, zstd } = best.ingest.threads;
    const idleFloor = Math.max(main, zstd / best.ingest.zstdWorkers, best.ingest.cpuSeconds / 2);
    report.add("ingestMcap: main thread CPU seconds per GiB of input", perGiB(size, main), "s");
    report.add(`ingestMcap: zstd worker threads (${best.ingest.zstdWorkers}) CPU seconds per GiB of input`, perGiB(size, zstd), "s");
    report.add("ingestMcap: libuv (file I/O) CPU seconds per GiB of input", perGiB(size, best.ingest.threads.libuv), "s");
    report.add("ingestMcap: V8 helpers (GC, compiler) CPU seconds per GiB of input", perGiB(size, best.ingest.threads.v8), "s");
    report.add("ingestMcap: MB/s on two idle cores at best (input / max(main thread CPU, a zstd worker's CPU, all CPU / 2))", mbps(size, idleFloor), "MB/s", { goal: { min: GOAL_MBPS } });
  }
  for (const [part, seconds] of Object.entries(parts ?? {})) report.add(`part alone: ${part}, CPU s per GiB of input`, perGiB(size, seconds), "s");
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
  if (phase === "parts") return console.log(JSON.stringify(await parts(input)));
  const started = performance.now();
  let zstdWorkers = 0;
  if (phase === "anchor") await anchor(input, out);
  else {
    const { ingestMcap, openFileSource, createDirectorySink } = require("../ingest/dist/index.js");
    zstdWorkers = require("../ingest/dist/zstd-workers.js").defaultWorkerCount();
    const source = await openFileSource(input);
    await ingestMcap(source, createDirectorySink(out), { zstdWorkers });
    await source.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
  const cpuSeconds = (userCPUTime + systemCPUTime) / 1e6;
  const threads = cpuByThread();
  // The zstd workers have ended by now, and their threads with them: the process's CPU time still
  // counts theirs (getrusage of the process), the live threads' does not.
  threads.zstd = Math.max(0, cpuSeconds - Object.values(threads).reduce((sum, value) => sum + value, 0));
  console.log(JSON.stringify({ seconds, cpuSeconds, rssMb: maxRSS / 1024, threads, zstdWorkers }));
}

/**
 * CPU seconds of this process's live threads so far, by kind: `main` (the JavaScript thread),
 * `libuv` (the thread pool: file I/O) and `v8` (GC and compiler helpers). The main thread's share
 * bounds the wall time on idle cores: its work is sequential, whatever the other threads do.
 */
function cpuByThread() {
  const ticksPerSecond = 100; // Linux's USER_HZ, the unit of /proc/<pid>/task/<tid>/stat times
  const seconds = { main: 0, libuv: 0, v8: 0, other: 0 };
  for (const tid of readdirSync("/proc/self/task")) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const [utime, stime] = stat.slice(stat.lastIndexOf(")") + 2).split(" ").slice(11, 13).map(Number);
    const kind = Number(tid) === process.pid ? "main" : name.startsWith("libuv") ? "libuv" : name.startsWith("V8") ? "v8" : "other";
    seconds[kind] += (utime + stime) / ticksPerSecond;
  }
  return seconds;
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

/** Runs the parts phase in a child process; returns CPU seconds per part over the whole input. */
function measureParts() {
  const child = spawnSync(process.execPath, [import.meta.filename, "--phase", "parts", INPUT], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (child.status !== 0) throw new Error(`parts exited with ${child.status ?? child.signal}`);
  const seconds = JSON.parse(child.stdout.trim().split("\n").at(-1));
  console.log(`parts (load ${loadAverage()}): ${JSON.stringify(seconds)}`);
  return seconds;
}

/**
 * Each part of the split alone, chunk after chunk through the whole input, on this thread with
 * synchronous calls, so each part's CPU time is its own: what the engine spreads over its main
 * thread and libuv's.
 */
async function parts(input) {
  const { McapIndexedReader, McapRecordBuilder, McapStreamReader } = require("@mcap/core");
  const { crc32 } = await import("node:zlib");
  const handle = await open(input, "r");
  const readable = { size: async () => BigInt((await handle.stat()).size), read: async (offset, length) => readAt(handle, offset, length) };
  const reader = await McapIndexedReader.Initialize({ readable });
  // The library's stream reader over bare records, told the schemas and channels first, as it requires.
  const library = new McapStreamReader({ noMagicPrefix: true, validateCrcs: false });
  const definitions = new McapRecordBuilder();
  for (const schema of reader.schemasById.values()) definitions.writeSchema(schema);
  for (const channel of reader.channelsById.values()) definitions.writeChannel(channel);
  library.append(definitions.buffer);
  while (library.nextRecord()) {
    // the definitions, untimed
  }
  const seconds = {};
  const timed = async (part, work) => {
    const start = process.cpuUsage();
    const result = await work(); // the engine's decompress() is async only for lz4's loading
    const used = process.cpuUsage(start);
    seconds[part] = (seconds[part] ?? 0) + (used.user + used.system) / 1e6;
    return result;
  };
  const { ChunkDecompressor, zstdCompressBound } = require("../ingest/dist/compression.js");
  const { BufferPool } = require("../ingest/dist/buffer-pool.js");
  const { ZstdWorkers } = require("../ingest/dist/zstd-workers.js");
  const pool = new BufferPool();
  const zstd = new ZstdWorkers(pool, 1, ENGINE_LEVEL);
  const decompressor = new ChunkDecompressor(pool, zstd);
  const napi = zstdNapi();
  const channels = { copy: channelChunks(), set: channelChunks() };
  const derived = [];
  const compressedBytes = {};
  let derivedBytes = 0;
  const chunks = [...reader.chunkIndexes].sort((a, b) => (a.chunkStartOffset < b.chunkStartOffset ? -1 : 1));
  for (const index of chunks) {
    const chunk = parseChunkRecord(await readAt(handle, index.chunkStartOffset, index.chunkLength));
    const records = await timed("zstd decompression, zstdDecompressSync", () => zstdDecompressSync(chunk.data, { maxOutputLength: chunk.size, chunkSize: chunk.size + 1 }));
    const engine = await timed("zstd decompression and CRC-32, the engine's (a worker thread's reused context, pooled buffers)", () => decompressor.decompress("zstd", chunk.data, chunk.size, chunk.crc));
    if (Buffer.compare(engine.records, records) !== 0) throw new Error("the engine's zstd decompression differs from zstdDecompressSync");
    decompressor.release(engine);
    if (napi) {
      const into = pool.takeAtLeast(chunk.size);
      const written = await timed("zstd decompression, zstd-napi (one reused DCtx, pooled buffers, main thread)", () => napi.dctx.decompress(into, chunk.data));
      if (Buffer.compare(into.subarray(0, written), records) !== 0) throw new Error("zstd-napi's decompression differs from zstdDecompressSync");
      pool.give(into);
    }
    await timed("input chunk CRC-32", () => {
      if (crc32(records) !== chunk.crc) throw new Error("chunk CRC mismatch");
    });
    await timed("framing by hand", () => frameByHand(records));
    await timed("framing with @mcap/core McapStreamReader", () => {
      library.append(records);
      while (library.nextRecord()) {
        // each record parsed into an object, as the library hands it out
      }
    });
    await timed("message copy with Buffer.copy", () => channels.copy.split(records, (from, at, length, to, into) => from.copy(to, into, at, at + length), undefined));
    await timed("message copy with set(subarray())", () => channels.set.split(records, (from, at, length, to, into) => to.set(from.subarray(at, at + length), into), derived));
    while (derived.length > 0) {
      const full = derived.pop();
      const atEngineLevel = await timed(`zstd recompression of derived chunks, level ${ENGINE_LEVEL} (the engine's)`, () => zstdCompressSync(full, { ...ENGINE_ZSTD, chunkSize: full.byteLength + 1 }));
      compressedBytes[ENGINE_LEVEL] = (compressedBytes[ENGINE_LEVEL] ?? 0) + atEngineLevel.byteLength;
      const input = pool.take(DERIVED_CHUNK);
      input.set(full);
      const output = pool.take(zstdCompressBound(DERIVED_CHUNK) + 1);
      const done = await timed(`zstd recompression of derived chunks, level ${ENGINE_LEVEL}, the engine's (a worker thread's reused context, pooled buffers)`, () => zstd.compress(input, full.byteLength, output));
      if (Buffer.compare(done.output.subarray(0, done.written), atEngineLevel) !== 0) throw new Error("the engine's zstd compression differs from zstdCompressSync's");
      if (napi) {
        const written = await timed(`zstd recompression of derived chunks, level ${ENGINE_LEVEL}, zstd-napi (one reused CCtx, pooled buffers, main thread)`, () => napi.cctx.compress2(done.output, full));
        if (written !== atEngineLevel.byteLength) throw new Error(`zstd-napi compressed a chunk to ${written} bytes, zlib to ${atEngineLevel.byteLength}`);
      }
      pool.give(done.output);
      for (const level of OTHER_LEVELS) {
        const compressed = await timed(`zstd recompression of derived chunks, level ${level}`, () => zstdCompressSync(full, { params: { [constants.ZSTD_c_compressionLevel]: level }, chunkSize: full.byteLength + 1 }));
        compressedBytes[level] = (compressedBytes[level] ?? 0) + compressed.byteLength;
      }
      derivedBytes += full.byteLength;
      await timed("derived chunk CRC-32 (no longer computed)", () => crc32(full));
    }
  }
  await handle.close();
  await zstd.close();
  const ratios = Object.entries(compressedBytes).map(([level, bytes]) => `level ${level} ${(derivedBytes / bytes).toFixed(2)}x`);
  console.error(`derived chunks: ${(derivedBytes / 1e6).toFixed(0)} MB; compression ratio ${ratios.join(", ")}`);
  return seconds;
}

/**
 * zstd-napi (npm), a Node-API binding to zstd with contexts that compress and decompress into the
 * caller's buffers, the library way to what the engine does through Node's zlib internals. It is not
 * a dependency of the project (it builds from source with node-gyp on install: no prebuilt binary
 * for this platform is reachable), so the comparison runs when BENCH_ZSTD_NAPI names an installed
 * copy (`npm install zstd-napi` in a scratch directory, then its node_modules/zstd-napi).
 */
function zstdNapi() {
  if (!process.env.BENCH_ZSTD_NAPI) return undefined;
  const { CCtx, DCtx } = require(path.resolve(process.env.BENCH_ZSTD_NAPI, "binding.js"));
  const cctx = new CCtx();
  cctx.setParameter(100, ENGINE_LEVEL); // ZSTD_c_compressionLevel
  return { cctx, dctx: new DCtx() };
}

async function readAt(handle, offset, length) {
  const buffer = Buffer.allocUnsafe(Number(length));
  await handle.read(buffer, 0, buffer.byteLength, Number(offset));
  return buffer;
}

/** A Chunk record's uncompressed size and CRC and its compressed records (opcode, length, times first). */
function parseChunkRecord(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = Number(view.getBigUint64(25, true));
  const crc = view.getUint32(33, true);
  const compressionLength = view.getUint32(37, true);
  const dataAt = 41 + compressionLength + 8;
  return { size, crc, data: bytes.subarray(dataAt, dataAt + Number(view.getBigUint64(41 + compressionLength, true))) };
}

/** The engine's framing loop (ingest/src/splitter.ts): opcode, length and channel id per record. */
function frameByHand(records) {
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  let channels = 0;
  for (let at = 0; at < records.byteLength; at += 9 + view.getUint32(at + 1, true)) {
    if (records[at] === 5) channels += records[at + 9] | (records[at + 10] << 8);
  }
  return channels;
}

/**
 * One open derived chunk per channel, as the engine keeps; `split` copies each message of `records`
 * into its channel's chunk with `copy`, pushing full chunks to `full` when given. (A function, not a
 * class: the phases run at the top of this module, before a class declaration would be reached.)
 */
function channelChunks() {
  const chunks = new Map();
  const append = (channel, records, at, length, copy, full) => {
    let chunk = chunks.get(channel);
    if (!chunk || chunk.length + length > DERIVED_CHUNK) {
      if (chunk && full) full.push(chunk.bytes.subarray(0, chunk.length));
      chunk = { bytes: Buffer.allocUnsafe(DERIVED_CHUNK), length: 0 };
      chunks.set(channel, chunk);
    }
    copy(records, at, length, chunk.bytes, chunk.length);
    chunk.length += length;
  };
  return {
    split(records, copy, full) {
      const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
      for (let at = 0; at < records.byteLength; ) {
        const length = 9 + view.getUint32(at + 1, true);
        if (records[at] === 5) append(records[at + 9] | (records[at + 10] << 8), records, at, length, copy, full);
        at += length;
      }
    },
  };
}

function perGiB(bytes, seconds) {
  return (seconds * 1024 ** 3) / bytes;
}

function mbps(bytes, seconds) {
  return bytes / 1e6 / seconds;
}
