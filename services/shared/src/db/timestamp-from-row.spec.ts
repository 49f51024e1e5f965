import { nullableTimestampFromRow, timestampFromRow } from "./timestamp-from-row";

/** What timestampFromRow did before it read the common layouts itself: Date's parser on the text made ISO 8601. */
const parsedByDate = (text: string) => new Date(text.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00"));

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** PostgreSQL's row text (`2026-11-21 08:07:42.102+00`) and its JSON text (`...T...+00:00`) of one instant and offset. */
function layouts(ms: number, offsetMinutes: number, fractionDigits: number): string[] {
  const local = new Date(ms + offsetMinutes * 60_000);
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}`;
  const time = `${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}`;
  const fraction = fractionDigits === 0 ? "" : `.${`${pad(local.getUTCMilliseconds(), 3)}987654`.slice(0, fractionDigits)}`;
  const sign = offsetMinutes < 0 ? "-" : "+";
  const [hours, minutes] = [pad(Math.floor(Math.abs(offsetMinutes) / 60), 2), pad(Math.abs(offsetMinutes) % 60, 2)];
  const short = minutes === "00" ? `${sign}${hours}` : `${sign}${hours}:${minutes}`;
  return [`${date} ${time}${fraction}${short}`, `${date}T${time}${fraction}${sign}${hours}:${minutes}`];
}

describe("timestampFromRow", () => {
  test("reads the row and JSON layouts as Date's parser does, over years 1-9999, offsets and fractions of 0-6 digits", () => {
    let seed = 3;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    const [from, to] = [Date.parse("0001-01-02T00:00:00Z"), Date.parse("9999-12-30T00:00:00Z")];
    const differ: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      // Half of them around now and 1970, where the data is.
      const ms = Math.floor(i % 2 === 0 ? from + random() * (to - from) : Date.parse("1960-01-01T00:00:00Z") + random() * 3e12);
      const offset = [0, 60, -480, 330, -150, 840, -720][i % 7]!;
      for (const text of layouts(ms, offset, i % 7)) {
        if (timestampFromRow(text).getTime() !== parsedByDate(text).getTime()) differ.push(`${text}: ${timestampFromRow(text).toISOString()}`);
      }
    }
    expect(differ).toEqual([]);
  });

  test("reads the edges of days, leap days and the epoch", () => {
    const texts = ["1970-01-01 00:00:00+00", "1969-12-31 23:59:59.999+00", "2000-02-29 12:00:00.5+00", "2024-02-29T23:59:59.999999+00:00", "1900-03-01 00:00:00-05", "0001-01-01 00:00:00+00", "9999-12-31 23:59:59.999+00"];
    for (const text of texts) expect([text, timestampFromRow(text).getTime()]).toEqual([text, parsedByDate(text).getTime()]);
  });

  test("leaves other layouts to Date's parser: BC, offsets with seconds, years past 9999, Date values as they are", () => {
    expect(timestampFromRow("1850-06-01 12:00:00+00:53:28").getTime()).toBe(parsedByDate("1850-06-01 12:00:00+00:53:28").getTime());
    expect(Number.isNaN(timestampFromRow("0044-03-15 12:00:00+00 BC").getTime())).toBe(true);
    expect(Number.isNaN(timestampFromRow("12026-01-01 00:00:00+00").getTime())).toBe(Number.isNaN(parsedByDate("12026-01-01 00:00:00+00").getTime()));
    const date = new Date();
    expect(timestampFromRow(date)).toBe(date);
  });
});

describe("nullableTimestampFromRow", () => {
  test("keeps a null column null and reads a timestamp as timestampFromRow does", () => {
    expect(nullableTimestampFromRow(null)).toBeNull();
    expect(nullableTimestampFromRow(undefined)).toBeNull();
    expect(nullableTimestampFromRow("2026-11-21 08:07:42.102+00")).toEqual(new Date("2026-11-21T08:07:42.102Z"));
  });
});
