import { checkDataSourceType, invocationSource, parseUploadDestination, storedUploadDestination, uploadDestinationDataset } from "./invocation-request";

describe("invocation requests", () => {
  it("accepts only Dataset data sources", () => {
    expect(checkDataSourceType("Dataset")).toBe("Dataset");
    expect(() => checkDataSourceType("dataset")).toThrow("data_source_type: must be Dataset, got 'dataset'");
  });

  it("a Manual invocation is the caller's; a Trigger one names its trigger", () => {
    expect(invocationSource("Manual", "someone", "ann")).toEqual({ type: "Manual", id: "ann" });
    expect(invocationSource("Trigger", "tr_1", "ann")).toEqual({ type: "Trigger", id: "tr_1" });
    expect(() => invocationSource("Trigger", undefined, "ann")).toThrow("invocation_source_id: is required when invocation_source is Trigger");
    expect(() => invocationSource("Cron", undefined, "ann")).toThrow("invocation_source: must be Trigger or Manual, got 'Cron'");
  });
});

describe("upload destinations", () => {
  it("reads both forms and nothing for null", () => {
    expect(parseUploadDestination(undefined)).toBeNull();
    expect(parseUploadDestination(null)).toBeNull();
    expect(parseUploadDestination({ bucket: "b", prefix: "" })).toEqual({ bucket: "b", prefix: "" });
    expect(parseUploadDestination({ destination_type: "Dataset", destination_id: "ds_1" })).toEqual({ datasetId: "ds_1" });
  });

  it.each([
    ["x", "upload_destination: must be an object"],
    [{ bucket: "", prefix: "p" }, "upload_destination.bucket: must be a non-empty string"],
    [{ bucket: "b" }, "upload_destination.prefix: must be a string"],
    [{ destination_type: "S3", destination_id: "x" }, 'upload_destination.destination_type: must be Dataset, got "S3"'],
    [{ destination_type: "Dataset" }, "upload_destination.destination_id: must be a dataset id"],
  ])("refuses %p", (json, message) => {
    expect(() => parseUploadDestination(json)).toThrow(message);
  });

  it("stores a dataset destination as bucket '' and a dataset: prefix, and reads it back", () => {
    const stored = storedUploadDestination({ datasetId: "ds_1" });
    expect(stored).toEqual({ bucket: "", prefix: "dataset:ds_1" });
    expect(uploadDestinationDataset(stored)).toBe("ds_1");
    expect(uploadDestinationDataset(storedUploadDestination({ bucket: "b", prefix: "dataset:ds_1" }))).toBeUndefined();
    expect(uploadDestinationDataset(null)).toBeUndefined();
  });
});
