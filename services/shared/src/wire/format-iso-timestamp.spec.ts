import { formatIsoTimestamp } from "./format-iso-timestamp";

const DAY = 86_400_000;
const utc = (year: number, month: number, day: number) => Date.UTC(year, month - 1, day);

describe("formatIsoTimestamp", () => {
  test("is toISOString's text at the edges of days, years and the 0000-9999 range", () => {
    const instants = [
      0,
      -1,
      1,
      DAY - 1,
      -DAY,
      -DAY - 1,
      utc(1969, 12, 31) + 86_399_999,
      utc(2000, 2, 29) + 43_200_123, // a leap day of a year divisible by 400
      utc(1900, 3, 1) - 1, // the last millisecond of February in a year divisible by 100, not a leap year
      utc(2024, 2, 29),
      utc(2026, 11, 21) + 26_175_123,
      utc(1582, 10, 15) - 1,
      new Date("0000-01-01T00:00:00.000Z").getTime() - 1, // -000001-12-31T23:59:59.999Z
      new Date("0000-01-01T00:00:00.000Z").getTime(),
      new Date("9999-12-31T23:59:59.999Z").getTime(),
      new Date("9999-12-31T23:59:59.999Z").getTime() + 1,
      8.64e15,
      -8.64e15,
    ];
    for (const ms of instants) expect([ms, formatIsoTimestamp(ms)]).toEqual([ms, new Date(ms).toISOString()]);
  });

  test("is toISOString's text for 200,000 instants across 1600-2400, before 1970 and after", () => {
    let seed = 1;
    const random = () => ((seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647);
    const from = utc(1600, 1, 1);
    const span = utc(2400, 1, 1) - from;
    const differ: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const ms = Math.floor(from + random() * span);
      if (formatIsoTimestamp(ms) !== new Date(ms).toISOString()) differ.push(`${ms}: ${formatIsoTimestamp(ms)}`);
    }
    expect(differ).toEqual([]);
  });

  test("drops a fraction of a millisecond toward zero, as Date does", () => {
    for (const ms of [1.5, -1.5, -0.5, 1_764_400_000_000.999, -1_764_400_000_000.25]) expect(formatIsoTimestamp(ms)).toBe(new Date(ms).toISOString());
  });

  test("throws toISOString's RangeError for an invalid time", () => {
    for (const ms of [NaN, Infinity, 8.64e15 + 1]) expect(() => formatIsoTimestamp(ms)).toThrow(RangeError);
  });
});
