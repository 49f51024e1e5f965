const SCANS = new Set(["Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan"]);

/** One plan node of `EXPLAIN (ANALYZE, FORMAT JSON)`, with the fields the check reads. */
interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/**
 * Runs `EXPLAIN (ANALYZE, FORMAT JSON)` of a query and lists what makes its cost grow with the
 * table rather than with the page: a scan of one of `bigTables` that reads past the budget (a
 * sequential scan, or an index walk feeding a sort), or any node that throws away (filter or
 * recheck) past it. The budget is ten
 * times the rows the query returns plus `slack`. An empty list is a plan that scales; timing is
 * never looked at.
 */
export async function planProblems(
  execute: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>,
  query: { sql: string; params: readonly unknown[] },
  bigTables: readonly string[],
  slack = 1000,
): Promise<string[]> {
  const rows = await execute(`explain (analyze, format json) ${query.sql}`, [...query.params]);
  const root = (rows[0]!["QUERY PLAN"] as [{ Plan: PlanNode }])[0].Plan;
  const budget = 10 * (root["Actual Rows"] ?? 0) + slack;
  const problems: string[] = [];
  const visit = (node: PlanNode) => {
    const loops = node["Actual Loops"] ?? 1;
    const removed = ((node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) * loops;
    const read = (node["Actual Rows"] ?? 0) * loops + removed;
    const what = `${node["Node Type"]} on ${node["Relation Name"] ?? node["Index Name"] ?? "?"}`;
    if (SCANS.has(node["Node Type"]) && bigTables.includes(node["Relation Name"] ?? "") && read > budget) problems.push(`${what} read ${read} rows for ${root["Actual Rows"]}`);
    else if (removed > budget) problems.push(`${what} removed ${removed} rows for ${root["Actual Rows"]}`);
    node.Plans?.forEach(visit);
  };
  visit(root);
  return problems;
}
