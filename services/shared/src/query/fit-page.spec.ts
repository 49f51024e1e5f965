import { DatasetSchema } from "../gen/hangar/data/v1/dataset_pb";
import { fitPage, fittingCount } from "./fit-page";

const MiB = 1024 * 1024;
const datasets = (count: number, descriptionBytes: number) => Array.from({ length: count }, (_, i) => ({ datasetId: `ds_${i}`, description: "d".repeat(descriptionBytes) }));

describe("fitPage", () => {
  test("keeps a page of small records whole", () => {
    expect(fitPage(DatasetSchema, datasets(1000, 100))).toHaveLength(1000);
  });

  test("stops before the record that would take the page past its budget", () => {
    expect(fitPage(DatasetSchema, datasets(10, MiB)).map((d) => d.datasetId)).toEqual(["ds_0", "ds_1"]);
  });

  test("keeps at least one record", () => {
    expect(fitPage(DatasetSchema, datasets(3, 5 * MiB))).toHaveLength(1);
  });
});

describe("fittingCount", () => {
  test("counts the leading records within the budget, at least one", () => {
    expect(fittingCount([MiB, MiB, 1.5 * MiB, 1], (size) => size)).toBe(2);
    expect(fittingCount([10 * MiB, 1], (size) => size)).toBe(1);
    expect(fittingCount([], (size: number) => size)).toBe(0);
  });
});
