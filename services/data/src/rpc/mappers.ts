import type { TimeValue } from "@hangar/shared/proto/common";
import type { TimeInput } from "../domain/time-values";

/**
 * A TimeValue as the time reader takes it (domain/time-values): exact nanoseconds, or the text
 * of seconds or ISO 8601; null when the request sent null (clear), undefined when it sent nothing.
 */
export function timeInputOf(value: TimeValue | undefined): TimeInput | undefined {
  switch (value?.kind.case) {
    case "nanoseconds":
    case "seconds":
    case "text":
      return value.kind.value;
    case "nullValue":
      return null;
    default:
      return undefined;
  }
}
