// The MCAP recording the SDK tests of the built-in ingestion upload (mcap-ingestion-sdk.e2e.ts with
// both releases' `Topic.get_data`, mcap-topics-v2-sdk.e2e.ts with the 0.62 experimental read
// path), and the messages it holds, to compare what the SDK reads back with.

/** Ten messages on each channel, 100 ms apart from 1 s after the epoch; `/point` 1 ns after `/imu`. */
export const RECORD_MCAP = String.raw`
import json, os, sys, pathlib
from mcap_ros2.writer import Writer
from roboto import Dataset
args = json.loads(sys.argv[1])
path = pathlib.Path(os.environ["HOME"]) / "drive.mcap"
imu_schema = {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "number"}, "nested": {"type": "object", "properties": {"z": {"type": "string"}}}}}
with open(path, "wb") as stream:
    writer = Writer(stream)
    point = writer.register_msgdef("demo_msgs/msg/Point2", "float64 x\nfloat64 y\nstring label\n")
    raw = writer._writer
    imu = raw.register_channel(topic="/imu", message_encoding="json", schema_id=raw.register_schema(name="Imu", encoding="jsonschema", data=json.dumps(imu_schema).encode()))
    for i in range(10):
        t = 1_000_000_000 + i * 100_000_000
        raw.add_message(channel_id=imu, log_time=t, publish_time=t, sequence=i, data=json.dumps({"x": i, "y": i * 2.5, "nested": {"z": f"s{i}"}}).encode())
        writer.write_message("/point", point, {"x": i * 0.5, "y": float(i), "label": f"p{i}"}, log_time=t + 1, publish_time=t + 1, sequence=i)
    writer.finish()
dataset = Dataset.from_id(args["dataset_id"])
dataset.upload_file(path)
print(json.dumps({"file_id": dataset.get_file_by_path("drive.mcap").file_id}))
`;

/** The timestamp (ns) of message `i`, `offset` ns later on `/point`. */
export const at = (i: number, offset = 0) => 1_000_000_000 + i * 100_000_000 + offset;
/** Message `i` of `/imu`. */
export const imu = (i: number) => ({ x: i, y: i * 2.5, nested: { z: `s${i}` } });
/** Message `i` of `/point`. */
export const point = (i: number) => ({ x: i * 0.5, y: i, label: `p${i}` });
/** The integers from `from` up to `to`, excluded. */
export const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
