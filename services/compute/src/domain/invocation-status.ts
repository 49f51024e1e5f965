import { invalidArgument } from "@hangar/shared";

/** InvocationStatus values (wire-notes.md). */
export const InvocationStatus = {
  Queued: 0,
  Scheduled: 1,
  Downloading: 2,
  Processing: 3,
  Uploading: 4,
  Completed: 5,
  Cancelled: 997,
  Failed: 998,
  Deadly: 999,
} as const;

export type InvocationStatusValue = (typeof InvocationStatus)[keyof typeof InvocationStatus];

const NAMES = new Map<number, string>(Object.entries(InvocationStatus).map(([name, value]) => [value, name]));

/** The status's name (`Queued`, ...). */
export function statusName(status: number): string {
  return NAMES.get(status) ?? String(status);
}

/** Checks that a number from a request is an InvocationStatus; `field` names it in the error. */
export function checkStatus(value: number, field: string): InvocationStatusValue {
  if (!NAMES.has(value)) {
    throw invalidArgument(field, `must be an InvocationStatus (${[...NAMES].map(([v, n]) => `${n} ${v}`).join(", ")}), got ${value}`);
  }
  return value as InvocationStatusValue;
}

const FINAL = new Set<number>([InvocationStatus.Completed, InvocationStatus.Cancelled, InvocationStatus.Deadly]);

/** Completed, Cancelled, Failed and Deadly: the invocation has stopped running. */
export function isTerminal(status: number): boolean {
  return FINAL.has(status) || status === InvocationStatus.Failed;
}

/**
 * The transition rules clients assume (wire-notes.md): a status may be re-stated; Completed,
 * Cancelled and Deadly are final; Failed may go back to Queued (a retry) or to Deadly; from any
 * other status Cancelled and Failed are always allowed, Deadly only from Queued, and otherwise
 * only forward.
 */
export function canTransition(from: number, to: number): boolean {
  if (from === to) return true;
  if (FINAL.has(from)) return false;
  if (from === InvocationStatus.Failed) return to === InvocationStatus.Queued || to === InvocationStatus.Deadly;
  if (to === InvocationStatus.Cancelled || to === InvocationStatus.Failed) return true;
  if (to === InvocationStatus.Deadly) return from === InvocationStatus.Queued;
  return to > from;
}
