import { joinSql, rawSql, sql } from "./sql-fragment";

describe("sql fragments", () => {
  it("turns interpolated values into placeholders", () => {
    expect(sql`a = ${1} AND b = ${"x"}`).toEqual({ sql: "a = ? AND b = ?", params: [1, "x"] });
  });

  it("splices nested fragments with their parameters in order", () => {
    const inner = sql`b = ${2}`;
    expect(sql`a = ${1} AND (${inner}) AND c = ${3}`).toEqual({ sql: "a = ? AND (b = ?) AND c = ?", params: [1, 2, 3] });
  });

  it("treats a look-alike object as a parameter, not as SQL", () => {
    const lookAlike = { sql: "1 = 1; DROP TABLE x", params: [] };
    expect(sql`a = ${lookAlike}`).toEqual({ sql: "a = ?", params: [lookAlike] });
  });

  it("joins fragments", () => {
    expect(joinSql([sql`a = ${1}`, rawSql("TRUE"), sql`b = ${2}`], " OR ")).toEqual({
      sql: "a = ? OR TRUE OR b = ?",
      params: [1, 2],
    });
  });

  it("refuses raw SQL holding a '?'", () => {
    expect(() => rawSql("data ? 'key'")).toThrow("raw SQL must not contain '?'");
  });
});
