import type { EpochTime } from "./timestamp-text";

const durationText = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;
const maxSeconds = 315_576_000_000n;

/** Parses a protobuf JSON duration (`"1.5s"`, `"-0.000001s"`); undefined when malformed or past ±10000 years. */
export function parseDuration(text: string): EpochTime | undefined {
  const m = durationText.exec(text);
  if (m === null) return undefined;
  const seconds = BigInt(m[2]!);
  if (seconds > maxSeconds) return undefined;
  const nanos = Number((m[3] ?? "").padEnd(9, "0"));
  return m[1] === "-" ? { seconds: -seconds, nanos: nanos === 0 ? 0 : -nanos } : { seconds, nanos };
}

/** Formats a duration as protobuf JSON does: seconds with 0, 3, 6 or 9 fractional digits and an `s`. */
export function formatDuration(seconds: bigint, nanos: number): string {
  const negative = seconds < 0n || nanos < 0;
  const whole = (seconds < 0n ? -seconds : seconds).toString();
  let fraction = "";
  if (nanos !== 0) {
    fraction = Math.abs(nanos).toString().padStart(9, "0");
    fraction = "." + (fraction.endsWith("000000") ? fraction.slice(0, 3) : fraction.endsWith("000") ? fraction.slice(0, 6) : fraction);
  }
  return `${negative ? "-" : ""}${whole}${fraction}s`;
}
