import { invalidArgument } from "@hangar/shared";

/** Longest `device_id`, in characters. */
export const MAX_DEVICE_ID_LENGTH = 256;
/** Longest device type name, in characters (as a dataset name, near enough). */
export const MAX_DEVICE_TYPE_NAME_LENGTH = 120;

/**
 * Validates a caller-chosen `device_id`: 1 to 256 characters without control characters. Any
 * other character is allowed, `/` included (clients URL-quote the id into one path segment).
 */
export function checkDeviceId(deviceId: string, field = "device_id"): string {
  if (deviceId.length === 0) throw invalidArgument(field, "is required");
  checkText(deviceId, MAX_DEVICE_ID_LENGTH, field);
  return deviceId;
}

/** Validates a device type name: not blank, at most 120 characters, no control characters. */
export function checkDeviceTypeName(name: string, field = "name"): string {
  if (name.trim().length === 0) throw invalidArgument(field, "must not be empty");
  checkText(name, MAX_DEVICE_TYPE_NAME_LENGTH, field);
  return name;
}

function checkText(text: string, maxLength: number, field: string): void {
  // Characters are code points, as clients count them.
  const length = [...text].length;
  if (length > maxLength) throw invalidArgument(field, `must be at most ${maxLength} characters (got ${length})`);
  if (/[\u0000-\u001f\u007f]/.test(text)) throw invalidArgument(field, "must not contain control characters");
}
