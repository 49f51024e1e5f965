import { timestampFromRow } from "./prepared-query";

/** PostgreSQL's text of `date` in UTC with `fraction` (microsecond digits, trailing zeros dropped as PostgreSQL does). */
function postgresText(date: Date, micros: number): string {
  const iso = date.toISOString(); // YYYY-MM-DDThh:mm:ss.sssZ
  const fraction = String(date.getUTCMilliseconds() * 1000 + micros).padStart(6, "0").replace(/0+$/, "");
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ""}+00`;
}

/** What the general path reads: the text made ISO 8601 for Date's own parser. */
function parsedByDate(text: string): number {
  return new Date(text.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00")).getTime();
}

test("UTC text reads as Date's parser reads it, across years, leap days and fractions", () => {
  const samples = [
    [new Date(Date.UTC(1970, 0, 1)), 0],
    [new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 999)), 999],
    [new Date(Date.UTC(2024, 1, 29, 12, 0, 0, 5)), 0],
    [new Date(Date.UTC(1000, 0, 1)), 1],
    [new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)), 999],
  ] as [Date, number][];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 2_000; i++) samples.push([new Date(Math.floor((random() - 0.3) * 8e12)), Math.floor(random() * 1000) * (i % 3 === 0 ? 0 : 1)]);
  for (const [date, micros] of samples) {
    const text = postgresText(date, micros);
    expect([text, timestampFromRow(text).getTime()]).toEqual([text, parsedByDate(text)]);
    expect(timestampFromRow(text).getTime()).toBe(date.getTime());
  }
});

test("other offsets, early years and Dates as they came", () => {
  expect(timestampFromRow("2026-11-21 08:07:42.102+05").toISOString()).toBe("2026-11-21T03:07:42.102Z");
  expect(timestampFromRow("2026-11-21 08:07:42-03").toISOString()).toBe("2026-11-21T11:07:42.000Z");
  expect(timestampFromRow("0099-03-01 00:00:00+00").toISOString()).toBe("0099-03-01T00:00:00.000Z");
  const date = new Date();
  expect(timestampFromRow(date)).toBe(date);
});
