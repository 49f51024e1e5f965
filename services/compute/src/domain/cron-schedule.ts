import { invalidArgument, quoteValue } from "@hangar/shared";

/** A parsed 5-field cron expression: the allowed values of each field, in a time zone. */
export interface CronSchedule {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  /** Both day fields restricted: a day matches when either does (cron's rule). */
  eitherDay: boolean;
  /** An IANA zone; the schedule's wall clock (default UTC). */
  timeZone: string;
}

const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day of week", min: 0, max: 7 },
] as const;

const NAMES: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12,
  sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6,
};

/**
 * Parses a 5-field cron expression (lists, ranges, steps, `*`, month and weekday names; 7 is
 * Sunday) in `timeZone`; a bad expression or zone is a 400 naming `field`.
 */
export function parseCron(expression: string, timeZone: string, field: string): CronSchedule {
  const key = `${timeZone} ${expression}`;
  const known = parsed.get(key);
  if (known) return known;
  const schedule = parseFresh(expression, timeZone, field);
  if (parsed.size >= PARSED_CACHE_SIZE) parsed.clear();
  parsed.set(key, schedule);
  return schedule;
}

/**
 * Parsed schedules by zone and expression. The scheduler reads every due trigger's stored cron on
 * each pass, and 10,000 triggers share a handful of expressions: parsing each one again was a
 * third of a pass's own work. A schedule is immutable, so sharing it is safe; only good ones are kept.
 */
const parsed = new Map<string, CronSchedule>();
const PARSED_CACHE_SIZE = 10_000;

function parseFresh(expression: string, timeZone: string, field: string): CronSchedule {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) throw invalidArgument(field, `must be a 5-field cron expression, got ${quoteValue(expression)}`);
  checkTimeZone(timeZone, field);
  const sets = parts.map((part, i) => parseField(part, FIELDS[i]!, field));
  const weekdays = new Set([...sets[4]!].map((d) => d % 7));
  return { minutes: sets[0]!, hours: sets[1]!, days: sets[2]!, months: sets[3]!, weekdays, eitherDay: parts[2] !== "*" && parts[4] !== "*", timeZone };
}

function parseField(text: string, range: (typeof FIELDS)[number], field: string): Set<number> {
  const values = new Set<number>();
  for (const item of text.toLowerCase().split(",")) {
    const match = /^(\*|[a-z0-9]+(?:-[a-z0-9]+)?)(?:\/(\d+))?$/.exec(item);
    if (!match) throw invalidArgument(field, `has a bad ${range.name} field ${quoteValue(text)}`);
    const [low, high] = match[1] === "*" ? [range.min, range.max] : bounds(match[1]!, range, field);
    const step = match[2] === undefined ? 1 : Number(match[2]);
    if (step < 1 || low > high) throw invalidArgument(field, `has a bad ${range.name} field ${quoteValue(text)}`);
    for (let v = low; v <= high; v += step) values.add(v);
  }
  return values;
}

function bounds(text: string, range: (typeof FIELDS)[number], field: string): [number, number] {
  const [from, to] = text.split("-").map((v) => NAMES[v] ?? (/^\d+$/.test(v) ? Number(v) : NaN));
  const low = from!;
  const high = to ?? low;
  if (!(low >= range.min && high <= range.max)) throw invalidArgument(field, `has a ${range.name} out of ${range.min}-${range.max}: ${quoteValue(text)}`);
  return [low, high];
}

function checkTimeZone(timeZone: string, field: string): void {
  try {
    wallClock(timeZone);
  } catch {
    throw invalidArgument(field, `names an unknown time zone ${quoteValue(timeZone)}`);
  }
}

interface WallTime {
  month: number;
  day: number;
  weekday: number;
  hour: number;
  minute: number;
}

const clocks = new Map<string, (at: Date) => WallTime>();
const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

/** The wall clock of a zone (cached: building a formatter costs far more than using one). */
function wallClock(timeZone: string): (at: Date) => WallTime {
  let clock = clocks.get(timeZone);
  if (clock) return clock;
  if (timeZone === "UTC") {
    clock = (at) => ({ month: at.getUTCMonth() + 1, day: at.getUTCDate(), weekday: at.getUTCDay(), hour: at.getUTCHours(), minute: at.getUTCMinutes() });
  } else {
    const format = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", month: "numeric", day: "numeric", weekday: "short", hour: "numeric", minute: "numeric" });
    clock = (at) => {
      const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
      return { month: Number(parts.month), day: Number(parts.day), weekday: WEEKDAYS[parts.weekday!]!, hour: Number(parts.hour), minute: Number(parts.minute) };
    };
  }
  clocks.set(timeZone, clock);
  return clock;
}

const MINUTE = 60_000;
/** How far ahead a next tick is looked for: "0 0 29 2 1" (a Monday 29 February) recurs within 28 years. */
const HORIZON_MS = 29 * 366 * 24 * 60 * MINUTE;

/**
 * The first tick strictly after `after` (whole minutes), or undefined when none comes within the
 * horizon. It walks the zone's wall clock, skipping a day or an hour at a time where those fields do
 * not match, so a yearly schedule costs a few hundred steps. A wall-clock minute skipped by a DST
 * jump does not fire; one repeated fires twice (once per instant), as with cron.
 */
export function nextTick(schedule: CronSchedule, after: Date): Date | undefined {
  const clock = wallClock(schedule.timeZone);
  let at = Math.floor(after.getTime() / MINUTE) * MINUTE + MINUTE;
  const end = at + HORIZON_MS;
  while (at < end) {
    const wall = clock(new Date(at));
    if (!schedule.months.has(wall.month) || !dayMatches(schedule, wall)) {
      at += ((23 - wall.hour) * 60 + (60 - wall.minute)) * MINUTE;
    } else if (!schedule.hours.has(wall.hour)) {
      at += (60 - wall.minute) * MINUTE;
    } else if (!schedule.minutes.has(wall.minute)) {
      at += MINUTE;
    } else {
      return new Date(at);
    }
  }
  return undefined;
}

function dayMatches(schedule: CronSchedule, wall: WallTime): boolean {
  const day = schedule.days.has(wall.day);
  const weekday = schedule.weekdays.has(wall.weekday);
  return schedule.eitherDay ? day || weekday : day && weekday;
}

/**
 * The ticks in (`from` - 1 min, `until`], oldest first and at most `max` (the most recent ones: a
 * scheduler that was down longer than that catches up only the last `max`), and the first tick
 * after `until` (undefined when none comes within the horizon), which the walk reaches anyway.
 */
export function ticksBetween(schedule: CronSchedule, from: Date, until: Date, max: number): { ticks: Date[]; next: Date | undefined } {
  const ticks: Date[] = [];
  let tick = nextTick(schedule, new Date(from.getTime() - MINUTE));
  for (; tick && tick <= until; tick = nextTick(schedule, tick)) {
    ticks.push(tick);
    if (ticks.length > max) ticks.shift();
  }
  return { ticks, next: tick };
}
