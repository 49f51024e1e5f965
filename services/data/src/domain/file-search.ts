import {
  compileWhere,
  conditionOfValue,
  createFieldCatalog,
  isConditionGroup,
  joinSql,
  MAX_LIMIT,
  outerJoined,
  parseConditionJson,
  planSearch,
  rawSql,
  splitFieldPath,
  sql,
  type Condition,
  type ConditionGroup,
  type FieldCatalog,
  type FieldRef,
  type QueryNode,
  type QuerySpecInput,
  type SearchPlan,
  type SqlFragment,
  type UnitOfWork,
} from "@hangar/shared";
import { datasetCatalog } from "./dataset-search";
import type { FsNodeRow } from "./file-records";
import type { DataRepositories } from "./repositories";

/**
 * The file's own fields, over `fs_nodes f`. `path` and `dataset_id` are the names the client SDK
 * and the text query language use for `relative_path` and `association_id`.
 */
export const fileColumns = createFieldCatalog({
  columns: {
    file_id: { sql: `"f"."node_id"`, type: "text", notNull: true },
    org_id: { sql: `"f"."org_id"`, type: "text", notNull: true },
    relative_path: { sql: `"f"."relative_path"`, type: "text", notNull: true },
    path: { sql: `"f"."relative_path"`, type: "text", notNull: true },
    name: { sql: `"f"."name"`, type: "text", notNull: true },
    size: { sql: `"f"."size"`, type: "number", notNull: true },
    created: { sql: `"f"."created"`, type: "timestamp", notNull: true },
    created_by: { sql: `"f"."created_by"`, type: "text", notNull: true },
    modified: { sql: `"f"."modified"`, type: "timestamp", notNull: true },
    modified_by: { sql: `"f"."modified_by"`, type: "text", notNull: true },
    description: { sql: `"f"."description"`, type: "text" },
    device_id: { sql: `"f"."device_id"`, type: "text" },
    association_id: { sql: `"f"."association_id"`, type: "text", notNull: true },
    dataset_id: { sql: `"f"."association_id"`, type: "text", notNull: true },
    origination: { sql: `"f"."origination"`, type: "text", notNull: true },
    ingestion_status: { sql: `"f"."ingestion_status"`, type: "text", notNull: true },
    status: { sql: `"f"."status"`, type: "text", notNull: true },
    version: { sql: `"f"."version"`, type: "number", notNull: true },
    tags: { sql: `"f"."tags"`, type: "text[]", notNull: true },
  },
  jsonColumns: { metadata: `"f"."metadata"` },
});

// A file's dataset is left-joined: files of a device have none, so its columns may be null there.
const fileDatasets = outerJoined(datasetCatalog);

/**
 * The fields a file search may filter and sort on: the file's own (optionally qualified `file.`)
 * and its dataset's under `dataset.` (the same fields query_datasets offers, over `datasets d`,
 * which the search left-joins on the file's association).
 */
export const fileCatalog: FieldCatalog = {
  resolve(field: string): FieldRef | undefined {
    const [first, ...rest] = splitFieldPath(field);
    if (rest.length > 0 && first === "dataset") return fileDatasets.resolve(rest.join("."));
    if (rest.length > 0 && first === "file") return fileCatalog.resolve(rest.join("."));
    return fileColumns.resolve(field);
  },
};

/**
 * total_count is exact up to this many matches (a full page at the largest limit) and null above.
 * Counting every match of a broad condition reads all of them (about 200 ms at a million files),
 * many times the cost of the page itself; a capped count costs a few milliseconds. count_files
 * gives the exact number when a caller needs it.
 */
export const TOTAL_COUNT_CAP = MAX_LIMIT;

/** Validates a QuerySpecification and compiles it into an org-scoped file search (query_files). */
export function planFileSearch(spec: QuerySpecInput): SearchPlan {
  return planSearch(spec, { catalog: fileCatalog, tieBreaker: `"f"."node_id"`, scope: "files", where: (node, path) => containmentWhere(node, path, fileCatalog) });
}

/**
 * Validates the condition of a QuerySpecification for count_files and compiles it. Paging and
 * sorting do not change a count, so `limit`, `after`, `sort_by` and `sort_direction` are ignored.
 */
export function planFileCount(spec: QuerySpecInput): SqlFragment {
  return containmentWhere(parseConditionJson(conditionOfValue(spec.condition), "condition"), "condition", fileCatalog);
}

/**
 * Compiles a condition with the shared engine, except that EQUALS on a JSON path reached through
 * AND and OR groups becomes jsonb containment (`metadata @> '{"a":{"b":v}}'`): the same test, but
 * one the GIN index on metadata serves and the planner estimates from statistics, where the
 * engine's `#>`/`jsonb_typeof` form is opaque to both. Under NOT, the engine's null handling is
 * kept as it is. Errors name the same paths as compileWhere, in the same order. Every saved-query
 * target compiles through it too (datasets' and sessions' metadata have GIN indexes as files' do).
 */
export function containmentWhere(node: QueryNode | undefined, path: string, catalog: FieldCatalog): SqlFragment {
  if (!node) return rawSql("TRUE");
  if (!isConditionGroup(node)) return containment(node, catalog) ?? compileWhere(node, catalog, path);
  if (node.operator === "NOT" || node.conditions.length === 0) return compileWhere(node, catalog, path);
  if (node.conditions.some((c) => isRelatedLeaf(c, catalog))) return node.operator === "AND" ? relatedApart(node, path, catalog) : compileWhere(node, catalog, path);
  const parts = node.conditions.map((c, i) => containmentWhere(c, `${path}.conditions[${i}]`, catalog));
  return sql`(${joinSql(parts, ` ${node.operator} `)})`;
}

function isRelatedLeaf(node: QueryNode, catalog: FieldCatalog): boolean {
  return !isConditionGroup(node) && catalog.resolve(node.field)?.kind === "related";
}

/**
 * An AND group with fields of related resources: those go to the engine together (it tests the
 * ones on one relation against one related row), the record's own members compile as above, so
 * `metadata.robot = 'r-7' AND tags CONTAINS 'outdoor' AND topic.topic_name = '/lidar'` finds its
 * datasets from the metadata and tags indexes before looking at topics (2 ms against 70 ms at
 * 100,000 datasets, where the opaque `#>>` form left the planner hashing every /lidar topic). The
 * whole group is compiled once first so that a bad member is named by its own path.
 */
function relatedApart(group: ConditionGroup, path: string, catalog: FieldCatalog): SqlFragment {
  const whole = compileWhere(group, catalog, path);
  const own = group.conditions.flatMap((c, i) => (isRelatedLeaf(c, catalog) ? [] : [containmentWhere(c, `${path}.conditions[${i}]`, catalog)]));
  if (own.length === 0) return whole;
  const related = compileWhere({ operator: "AND", conditions: group.conditions.filter((c) => isRelatedLeaf(c, catalog)) }, catalog, path);
  return sql`(${joinSql([...own, related], " AND ")})`;
}

/**
 * `column @> {path: value}` for EQUALS with a scalar on a JSON path of object keys, else undefined.
 * For an object path containment holds exactly when the value there equals the scalar (a JSON
 * array only contains a bare scalar at the top level, which a non-empty path never is). Numeric
 * segments are left to the engine: `#>` reads them as list indexes, containment as object keys.
 * A missing dataset (the left join's NULL) fails the test either way, which is all AND/OR see.
 */
function containment(condition: Condition, catalog: FieldCatalog): SqlFragment | undefined {
  if (condition.comparator !== "EQUALS" || condition.value === undefined) return undefined;
  const ref = catalog.resolve(condition.field);
  if (ref?.kind !== "json" || ref.path.length === 0 || ref.path.some((key) => /^\d+$/.test(key))) return undefined;
  const document = ref.path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), condition.value);
  return sql`(${rawSql(ref.sql)} @> ${JSON.stringify(document)}::jsonb)`;
}

/** The repositories of the org-wide file search. */
export type FileSearchRepositories = Pick<DataRepositories, "fileSearch">;

/** One page of query_files; `nextToken(kept)` continues after the first `kept` rows (a response may keep fewer). */
export interface FileSearchResult {
  rows: FsNodeRow[];
  /** The number of matches, or undefined above TOTAL_COUNT_CAP. */
  total: number | undefined;
  nextToken(kept: number): string | undefined;
}

/**
 * query_files: a page of the org's available files matching a QuerySpecification. Planned before
 * the org is looked at, so bad input is a 400 for every caller; no readable org finds nothing.
 */
export async function searchFiles(uow: UnitOfWork<FileSearchRepositories>, orgId: string | undefined, spec: QuerySpecInput): Promise<FileSearchResult> {
  const plan = planFileSearch(spec);
  if (!orgId) return { rows: [], total: 0, nextToken: () => undefined };
  const { rows, hasMore, cursors, total } = await uow.repositories().fileSearch.search(orgId, plan, TOTAL_COUNT_CAP);
  return { rows, total, nextToken: (kept) => plan.nextToken(cursors[kept - 1], hasMore || kept < rows.length) };
}

/** count_files: the number of the org's available files matching a QuerySpecification's condition (0 without a readable org). */
export async function countFiles(uow: UnitOfWork<FileSearchRepositories>, orgId: string | undefined, spec: QuerySpecInput): Promise<number> {
  const where = planFileCount(spec);
  return orgId ? uow.repositories().fileSearch.count(orgId, where) : 0;
}
