// Microbenchmark: where the platform thread's CPU for one page of list_association_topics goes
// (bench:topics' first page: 100 topics, each with 3 message paths and one representation), piece
// by piece, each beside what it replaced, so the choices can be re-run. Run with
// `npm run build && npm run bench:topic-page-cpu`; about half a minute.
//
// - the store's reading of the page's 1,400 timestamps from PostgreSQL's text (timestampFromRow),
//   against Date's parser on the text made ISO 8601 (what it did before);
// - the page's messages (topicToProto and create, as the data service builds them);
// - fitPage: the size bound that keeps a page far under its budget whole, against what it did
//   before (toBinary of every record to measure it);
// - the gateway's JSON text of the response (messageToJson: plain values written by one
//   JSON.stringify, formatting the Timestamps with the shared formatIsoTimestamp), against the same
//   writer with toISOString, and against the library's way (protobuf-es toJson, then JSON.stringify);
// - the body as bytes: ASCII text copied byte for byte (after a UTF-8 length check), against
//   encoding it as UTF-8 (Buffer.from), what it did before.
// Each is the best of BENCH_RUNS short runs (the least disturbed by other processes on a shared
// machine), after a warm-up, a replaced piece and its replacement in alternate runs; the load
// average is printed.
import "./pinned-node.mjs";
import { createRequire } from "node:module";
import { createReport } from "./report.mjs";

const require = createRequire(import.meta.url);
const { create, toBinary, toJson } = require("@bufbuild/protobuf");
const { fitPage, PAGE_BUDGET_BYTES, timestampFromRow } = require("../services/shared/dist/index.js");
const { ListAssociationTopicsResponseSchema, TopicSchema } = require("../services/shared/dist/proto/data.js");
const { topicToProto } = require("../services/data/dist/rpc/topic-mappers.js");
const { messageToJson } = require("../gateway/dist/transcode/index.js");

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const ROUNDS = 3;
const TOPICS = 100;

const views = Array.from({ length: TOPICS }, (_, k) => topicView(k));
const report = createReport("topic-page-cpu");

// As PostgreSQL writes them: the topics' own columns as row text, the paths' and representations' in JSON.
const stamps = Array.from({ length: 14 * TOPICS }, (_, i) => {
  const iso = new Date(Date.UTC(2026, 10, 29, 6, 51, 0, i)).toISOString().replace("Z", `${String(i % 1000).padStart(3, "0")}`);
  return i % 7 < 2 ? `${iso.replace("T", " ")}+00` : `${iso}+00:00`;
});
const [parsedByDate, parsed] = best(
  () => stamps.map((text) => new Date(text.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00"))),
  () => stamps.map(timestampFromRow),
);
report.add("the store's 1,400 timestamps before: Date's parser on the text made ISO 8601, per page", parsedByDate, "ms");
report.add("the store's 1,400 timestamps: timestampFromRow, per page", parsed, "ms", { anchor: { name: "Date's parser", value: parsedByDate } });

const messages = views.map((view) => create(TopicSchema, topicToProto(view)));
report.add("the page's messages: topicToProto and create, per page", best(() => views.map((view) => create(TopicSchema, topicToProto(view))))[0], "ms");

const [encoded, bounded] = best(
  () => fittingByEncoding(messages),
  () => fitPage(TopicSchema, messages),
);
report.add("fitPage before: toBinary of each record, per page", encoded, "ms");
report.add("fitPage: the size bound, per page", bounded, "ms", { anchor: { name: "toBinary each", value: encoded } });

const response = create(ListAssociationTopicsResponseSchema, { items: messages, totalCount: 10_000n, nextToken: "t".repeat(120) });
const json = () => messageToJson(ListAssociationTopicsResponseSchema, response);
const [withIso, formatted] = best(() => withToIsoString(json), json);
report.add("the gateway's JSON text before (Timestamps with toISOString), per page", withIso, "ms");
report.add("the gateway's JSON text (formatIsoTimestamp), per page", formatted, "ms", { anchor: { name: "with toISOString", value: withIso } });
const [library, ours] = best(() => JSON.stringify(toJson(ListAssociationTopicsResponseSchema, response)), json);
report.add("the library's JSON text (protobuf-es toJson, then JSON.stringify), per page", library, "ms");
report.add("the gateway's JSON text (messageToJson), per page", ours, "ms", { anchor: { name: "protobuf-es toJson", value: library } });

const body = `{"data":${json()}}`;
const [utf8Encoded, asciiCopied] = best(
  () => Buffer.from(body).length,
  () => (Buffer.byteLength(body) === body.length ? Buffer.from(body, "latin1") : Buffer.from(body)).length,
);
report.add("the body before: encoded as UTF-8 (Buffer.from), per page", utf8Encoded, "ms");
report.add("the body: ASCII copied byte for byte (after its UTF-8 length), per page", asciiCopied, "ms", { anchor: { name: "UTF-8 encoding", value: utf8Encoded } });
report.add("the page's JSON", Buffer.byteLength(body) / 1024, "KiB");
report.print();

/** The page's fitPage as it was: every record encoded to be measured. */
function fittingByEncoding(records) {
  let bytes = 0;
  for (let i = 0; i < records.length; i++) if ((bytes += toBinary(TopicSchema, records[i]).length) > PAGE_BUDGET_BYTES && i > 0) return i;
  return records.length;
}

/** Runs `measure` with Date.prototype.toISOString standing in for the shared formatter's arithmetic (its fallback path). */
function withToIsoString(measure) {
  const { Date: RealDate } = globalThis;
  const shared = require("../services/shared/dist/wire/format-iso-timestamp.js");
  const original = shared.formatIsoTimestamp;
  // The gateway imports the function through the shared index's getter, so the module's export is what it calls.
  Object.defineProperty(shared, "formatIsoTimestamp", { value: (ms) => new RealDate(ms).toISOString(), configurable: true, writable: true });
  try {
    return measure();
  } finally {
    Object.defineProperty(shared, "formatIsoTimestamp", { value: original, configurable: true, writable: true });
  }
}

/**
 * ms per call of each of `pages`, best of RUNS runs of ROUNDS calls, after a warm-up; the runs of
 * the pages alternate, so a busy moment of the machine does not fall on one of them only. Strings
 * built by a call are flattened (as writing them does), so none is left a rope never read.
 */
function best(...pages) {
  const bests = pages.map(() => Infinity);
  let sink = 0;
  for (const page of pages) for (let i = 0; i < 20; i++) page();
  for (let run = 0; run < RUNS; run++) {
    pages.forEach((page, i) => {
      const started = process.hrtime.bigint();
      for (let round = 0; round < ROUNDS; round++) sink += lengthOf(page());
      bests[i] = Math.min(bests[i], Number(process.hrtime.bigint() - started) / 1e6 / ROUNDS);
    });
  }
  if (sink === 0) throw new Error("nothing measured");
  return bests;
}

function lengthOf(result) {
  if (typeof result === "string") return Buffer.byteLength(result);
  return typeof result === "number" ? result : result.length;
}

/** A topic as bench:topics seeds it (the data service's view of its row): 3 message paths, one representation holding them. */
function topicView(k) {
  const at = new Date(Date.UTC(2026, 10, 29, 6, 51, 0, k));
  const ids = { topicId: `tp_bench_${k}`, orgId: "og_qksm5lghmqp41eu7xxym" };
  const paths = ["x", "y", "pose.z"].map((path) => ({ ...ids, messagePathId: `mp_bench_${k}_${path}`, messagePath: path, sourcePath: path, pathInSchema: path.split("."), dataType: "float64", canonicalDataType: "number", metadata: {}, created: at, createdBy: "bench", modified: at, modifiedBy: "bench" }));
  const representation = { ...ids, representationId: `rp_bench_${k}`, associationType: "file", associationId: "fl_bench", associationVersion: null, storageFormat: "mcap", version: 1n, format: null, transformations: [], created: at, modified: at, messagePathIds: paths.map((p) => p.messagePathId) };
  return {
    topic: { ...ids, associationType: "dataset", associationId: "ds_qezkarh5viowau08hiwj", associationVersion: null, topicName: `/bench/topic_${k}`, schemaName: "bench/Msg", schemaChecksum: null, schemaId: null, startTime: 1_700_000_000_000_000_000n + BigInt(k), endTime: 1_700_000_001_000_000_000n + BigInt(k), messageCount: 1000n, metadata: { k }, defaultRepresentationId: null, created: at, createdBy: "bench", modified: at, modifiedBy: "bench" },
    messagePaths: paths,
    representations: [representation],
  };
}
