import type { ObjectStore } from "../object-store/object-store";
import { MAX_IMPORT_BATCH, planImport, planImports, type ImportRequest } from "./imports";

/** An object store in bucket `b` holding objects of the given sizes by key. */
function objectsWith(sizes: Record<string, number>): ObjectStore {
  return {
    location: { bucket: "b", region: "r", endpoint: undefined },
    head: async (key: string) => (key in sizes ? { size: sizes[key]!, etag: "e" } : undefined),
  } as Partial<ObjectStore> as ObjectStore;
}

function request(init: Partial<ImportRequest> = {}): ImportRequest {
  return { datasetId: "ds_1", relativePath: "a.txt", uri: "s3://b/og_1/raw/a.txt", tags: [], ...init };
}

const objects = objectsWith({ "og_1/raw/a.txt": 4, "og_1/raw/b.txt": 6 });

describe("planImport", () => {
  it("takes the object's size when none is given", async () => {
    expect(await planImport(objects, "og_1", request(), "")).toMatchObject({ path: "a.txt", size: 4n });
  });

  it.each([
    ["another bucket", "s3://other/og_1/raw/a.txt", "uri: bucket 'other' is not the platform's bucket 'b'"],
    ["another org's prefix", "s3://b/og_2/raw/a.txt", "uri: must name an object below the org's prefix 'og_1/'"],
    ["a dot segment", "s3://b/og_1/../og_2/a.txt", "uri: 's3://b/og_1/../og_2/a.txt' is not a valid object key"],
    ["no key", "s3://b", "uri: must be an s3://bucket/key URI"],
  ])("refuses a URI with %s", async (_case, uri, message) => {
    await expect(planImport(objects, "og_1", request({ uri }), "")).rejects.toThrow(message);
  });

  it("refuses a missing object and a size that is not the object's", async () => {
    await expect(planImport(objects, "og_1", request({ uri: "s3://b/og_1/raw/none" }), "")).rejects.toThrow("uri: no object exists at 's3://b/og_1/raw/none'");
    await expect(planImport(objects, "og_1", request({ size: 5n }), "")).rejects.toThrow("size: is 5 but the object at 's3://b/og_1/raw/a.txt' is 4 bytes");
  });
});

describe("planImports", () => {
  it("refuses an empty batch and one past the limit", async () => {
    await expect(planImports(objects, "og_1", [])).rejects.toThrow("requests: must list at least one import");
    const many = Array.from({ length: MAX_IMPORT_BATCH + 1 }, (_, i) => request({ relativePath: `f${i}` }));
    await expect(planImports(objects, "og_1", many)).rejects.toThrow(`requests: must list at most ${MAX_IMPORT_BATCH} imports`);
  });

  it("checks every request's fields before looking up any object, naming the index", async () => {
    // The first request's object is missing, but the second's field error is found first.
    const batch = [request({ uri: "s3://b/og_1/raw/none" }), request({ relativePath: "../x" })];
    await expect(planImports(objects, "og_1", batch)).rejects.toThrow("requests[1].relative_path:");
  });

  it("refuses two requests for the same file of a dataset, naming the second", async () => {
    const batch = [request(), request({ relativePath: "./a.txt", uri: "s3://b/og_1/raw/b.txt" })];
    await expect(planImports(objects, "og_1", batch)).rejects.toThrow("requests[1].relative_path: names the same file as requests[0]");
  });

  it("plans the same path in two datasets, in request order", async () => {
    const plans = await planImports(objects, "og_1", [request(), request({ datasetId: "ds_2", uri: "s3://b/og_1/raw/b.txt" })]);
    expect(plans.map((p) => [p.prefix, p.datasetId, p.size])).toEqual([["requests[0].", "ds_1", 4n], ["requests[1].", "ds_2", 6n]]);
  });
});
