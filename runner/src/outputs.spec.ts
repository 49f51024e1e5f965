import { create } from "@bufbuild/protobuf";
import { InvocationSchema } from "@hangar/shared/proto/compute";
import { destinationPath, outputDestinationOf } from "./outputs";

const invocation = (uploadDestination?: { bucket: string; prefix: string }) =>
  create(InvocationSchema, { invocationId: "iv_1", dataSource: { dataSourceType: "Dataset", dataSourceId: "ds_1" }, ...(uploadDestination ? { uploadDestination } : {}) });

describe("outputDestinationOf", () => {
  it("is the invocation's dataset without an upload destination", () => {
    expect(outputDestinationOf(invocation())).toEqual({ datasetId: "ds_1", prefix: "", origination: "invocation iv_1" });
  });

  it("is the named dataset for a dataset destination", () => {
    expect(outputDestinationOf(invocation({ bucket: "", prefix: "dataset:ds_2" }))).toEqual({ datasetId: "ds_2", prefix: "", origination: "invocation iv_1" });
  });

  it("is a prefix in the invocation's dataset for a bucket destination", () => {
    expect(outputDestinationOf(invocation({ bucket: "results", prefix: "runs/1/" }))).toEqual({ datasetId: "ds_1", prefix: "runs/1/", origination: "invocation iv_1" });
  });
});

describe("destinationPath", () => {
  it.each([
    ["", "a.txt", "a.txt"],
    ["runs/1", "a/b.txt", "runs/1/a/b.txt"],
    ["/runs/1/", "a.txt", "runs/1/a.txt"],
  ])("prefix %p puts %p at %p", (prefix, file, expected) => {
    expect(destinationPath({ datasetId: "ds_1", prefix, origination: "" }, file)).toBe(expected);
  });
});
