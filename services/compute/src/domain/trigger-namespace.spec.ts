import { evaluateCondition, type TriggerNamespace } from "./trigger-namespace";

// A trigger's condition must hold on an event exactly when the same condition, run as a search by
// the shared query engine, finds the record: text CONTAINS ignores case there (ILIKE), so here too.
const namespace: TriggerNamespace = {
  defaultRoot: "dataset",
  records: { dataset: { name: "Warehouse Run 7", tags: ["Outdoor", "lidar"], metadata: { robot: "R-7" } } },
};

const holds = (field: string, comparator: "CONTAINS" | "NOT_CONTAINS", value: string): boolean =>
  evaluateCondition({ field, comparator, value }, namespace);

describe("CONTAINS in trigger conditions", () => {
  test("text contains a value whatever its case", () => {
    expect(holds("dataset.name", "CONTAINS", "warehouse")).toBe(true);
    expect(holds("dataset.name", "CONTAINS", "RUN 7")).toBe(true);
    expect(holds("metadata.robot", "CONTAINS", "r-")).toBe(true);
    expect(holds("dataset.name", "CONTAINS", "field")).toBe(false);
    expect(holds("dataset.name", "NOT_CONTAINS", "WAREHOUSE")).toBe(false);
  });

  test("a list holds an item exactly, as tags CONTAINS does in a search", () => {
    expect(holds("dataset.tags", "CONTAINS", "Outdoor")).toBe(true);
    expect(holds("dataset.tags", "CONTAINS", "outdoor")).toBe(false);
    expect(holds("dataset.tags", "CONTAINS", "lid")).toBe(false);
  });
});
