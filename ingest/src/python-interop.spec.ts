// The other side of the loop: a file recorded by the Python `mcap` / `mcap_ros2` writers (lz4 chunks,
// as those writers can produce) is ingested, and the derived files are read back by the same Python
// reader the public SDK reads representations with, CRCs validated, ROS 2 messages decoded.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDirectorySink, ingestMcap, openFileSource } from "./index";

const SCRIPT = `
import json, os, sys
from mcap.reader import make_reader
from mcap.writer import CompressionType
from mcap_ros2.decoder import DecoderFactory
from mcap_ros2.writer import Writer

def write(file):
    with open(file, "wb") as f:
        writer = Writer(f, chunk_size=512, compression=CompressionType.LZ4)
        point = writer.register_msgdef("demo_msgs/msg/Point2", "float64 x\\nfloat64 y\\nstring label\\n")
        raw = writer._writer
        weather = raw.register_schema(name="demo.Weather", encoding="jsonschema", data=json.dumps({"type": "object", "properties": {"t": {"type": "integer"}}}).encode())
        channel = raw.register_channel(topic="/weather", message_encoding="json", schema_id=weather)
        for i in range(40):
            at = 1_700_000_000_000_000_000 + i * 1_000
            writer.write_message("/point", point, {"x": i * 0.5, "y": -i, "label": f"p{i}"}, log_time=at, sequence=i)
            raw.add_message(channel_id=channel, log_time=at + 1, publish_time=at, sequence=i, data=json.dumps({"t": i}).encode())
        writer.finish()

def read(files):
    decoders = DecoderFactory()
    topics = {}
    for file in files:
        with open(file, "rb") as f:
            for schema, channel, message in make_reader(f, validate_crcs=True).iter_messages(log_time_order=True):
                if channel.message_encoding == "cdr":
                    decoded = decoders.decoder_for("cdr", schema)(message.data)
                    value = {"x": decoded.x, "y": decoded.y, "label": decoded.label}
                else:
                    value = json.loads(message.data)
                topics.setdefault(channel.topic, []).append([message.log_time, message.sequence, value])
    print(json.dumps(topics, sort_keys=True))

if sys.argv[1] == "write":
    write(sys.argv[2])
else:
    read(sys.argv[2:])
`;

function python(...args: string[]): string {
  const interpreter = process.env.HANGAR_TEST_ROBOTO_NEXT_PYTHON;
  if (!interpreter) throw new Error("HANGAR_TEST_ROBOTO_NEXT_PYTHON is not set: run through jest's global setup");
  return execFileSync(interpreter, ["-c", SCRIPT, ...args], { encoding: "utf8" });
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "ingest-python-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a file the Python writers record with lz4 splits into files the Python reader decodes to the same messages", async () => {
  const input = path.join(dir, "recorded.mcap");
  python("write", input);
  const source = await openFileSource(input);
  const manifest = await ingestMcap(source, createDirectorySink(path.join(dir, "out")));
  await source.close();
  // By channel id: the ROS 2 writer registers /point's channel at its first message, after /weather's.
  expect(manifest.topics.map((topic) => [topic.topic_name, topic.message_count, topic.message_encoding])).toEqual([
    ["/weather", 40, "json"],
    ["/point", 40, "cdr"],
  ]);
  const original = JSON.parse(python("read", input)) as Record<string, unknown[]>;
  expect(original["/point"]).toHaveLength(40);
  for (const topic of manifest.topics) {
    const derived = JSON.parse(python("read", path.join(dir, "out", topic.derived_file))) as Record<string, unknown[]>;
    expect(derived).toEqual({ [topic.topic_name]: original[topic.topic_name] });
  }
});
