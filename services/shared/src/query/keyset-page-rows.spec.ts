import { keysetPageRows, keysetRangesSql } from "./keyset-page-rows";
import { rawSql, sql, type SqlFragment } from "./sql-fragment";
import { decodeCursorToken } from "./page-token";
import { planSearch } from "./plan-search";
import { createFieldCatalog } from "./field-catalog";

const catalog = createFieldCatalog({ columns: { created: { sql: '"t"."created"', type: "timestamp" } } });
const raw = [1, 2, 3, 4].map((n) => ({ id: `r${n}`, page_key: String(n * 1000), page_id: `r${n}` }));

describe("keysetPageRows", () => {
  test("keeps `limit` rows with each one's cursor and tells that more follow", () => {
    const page = keysetPageRows(raw, 3, (row) => row["id"]);
    expect(page.rows).toEqual(["r1", "r2", "r3"]);
    expect(page.cursors).toEqual([
      { key: "1000", id: "r1" },
      { key: "2000", id: "r2" },
      { key: "3000", id: "r3" },
    ]);
    expect(page.hasMore).toBe(true);
  });

  test("a page cut to fit the response continues after its last KEPT row", () => {
    const plan = planSearch({}, { catalog, tieBreaker: '"t"."id"' });
    const { rows, hasMore, cursors } = keysetPageRows(raw.slice(0, 3), 3, (row) => row["id"]);
    expect(hasMore).toBe(false);
    const kept = rows.slice(0, 2); // fitPage kept two of three
    const token = plan.nextToken(cursors[kept.length - 1], hasMore || kept.length < rows.length);
    expect(token).toBeDefined();
    const fingerprint = JSON.parse(Buffer.from(token!, "base64url").toString("utf8")).f as string;
    expect(decodeCursorToken(token, fingerprint, "after")).toEqual({ key: "2000", id: "r2" });
    expect(plan.nextToken(cursors[rows.length - 1], hasMore)).toBeUndefined();
  });
});

describe("keysetRangesSql", () => {
  const page = (after: SqlFragment) => sql`select p.* from v p where ${after} order by "p"."k" limit 3`;
  const orderBy = rawSql('"p"."k" ASC, "p"."id" ASC');

  test("one range is the page itself", () => {
    expect(keysetRangesSql([rawSql("TRUE")], page, orderBy, "p", 2)).toEqual(page(rawSql("TRUE")));
  });

  test("two ranges are read apart and the first limit + 1 rows of both kept, in order", () => {
    const ranges = [sql`("p"."k", "p"."id") > (${1}, ${"a"})`, rawSql('"p"."k" is null')];
    expect(keysetRangesSql(ranges, page, orderBy, "p", 2)).toEqual({
      sql:
        'select * from ((select p.* from v p where ("p"."k", "p"."id") > (?, ?) order by "p"."k" limit 3) union all ' +
        '(select p.* from v p where "p"."k" is null order by "p"."k" limit 3)) p order by "p"."k" ASC, "p"."id" ASC limit ?',
      params: [1, "a", 3],
    });
  });
});
