import { invalidArgument, isPlatformPath, PLATFORM_FILES_ROOT, quoteValue } from "@hangar/shared";

/** Longest name of one path segment (a file or directory name), in characters. */
export const MAX_NAME_LENGTH = 255;
/** Longest relative path, in characters. */
export const MAX_PATH_LENGTH = 1024;

/**
 * Validates a file path relative to its association (`dir/a.txt`): no leading or doubled slash, no
 * `.` or `..` segment, no segment longer than 255 characters, at most 1,024 characters in all. A
 * single leading `./` or `/` is tolerated and dropped, since clients build paths both ways.
 */
export function checkRelativePath(path: string, field: string): string {
  const trimmed = withoutLeadingSlash(path);
  if (trimmed.length === 0) throw invalidArgument(field, "must not be empty");
  if ([...trimmed].length > MAX_PATH_LENGTH) throw invalidArgument(field, `must be at most ${MAX_PATH_LENGTH} characters`);
  for (const segment of trimmed.split("/")) {
    if (segment === "") throw invalidArgument(field, `${quoteValue(path)} has an empty path segment`);
    if (segment === "." || segment === "..") throw invalidArgument(field, `${quoteValue(path)} must not contain '.' or '..' segments`);
    if ([...segment].length > MAX_NAME_LENGTH) throw invalidArgument(field, `a name in ${quoteValue(path)} is longer than ${MAX_NAME_LENGTH} characters`);
  }
  return trimmed;
}

/** A path without the one leading `./` or `/` that clients may send. */
function withoutLeadingSlash(path: string): string {
  return path.replace(/^\.?\//, "");
}

/** Whether a path as a request gives it names the platform's own tree (`.hangar` and below). */
export function namesPlatformPath(path: string): boolean {
  return isPlatformPath(withoutLeadingSlash(path));
}

/**
 * A path a write may land on: a valid relative path, outside the platform's own tree (`.hangar` and
 * below: the derived files of ingestion, which the platform writes, hides and deletes with their
 * source) unless the writer is one of the platform's built-in actions (`platformAction`, see writesAsPlatform:
 * only uploads are).
 */
export function checkUserPath(path: string, field: string, platformAction = false): string {
  const checked = checkRelativePath(path, field);
  if (isPlatformPath(checked) && !platformAction) throw invalidArgument(field, `${quoteValue(checked)} is in ${PLATFORM_FILES_ROOT}/, which is reserved for the platform's own files`);
  return checked;
}

/** The last segment of a path: the file or directory name. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** The directories that contain a path, outermost first (`a/b/c.txt` gives `a`, `a/b`). */
export function ancestorDirectories(path: string): string[] {
  const segments = path.split("/").slice(0, -1);
  return segments.map((_, i) => segments.slice(0, i + 1).join("/"));
}
