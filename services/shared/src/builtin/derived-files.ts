/**
 * Where the platform keeps the files it derives from an uploaded file (the per-topic MCAP files of
 * the built-in ingestion): in the source file's own dataset, under this directory and then the
 * source file's id. The data service hides these paths from ordinary listings and queries and
 * deletes them with their source; get_file and signed URLs still read them, as representations need.
 */
export const DERIVED_FILES_ROOT = ".hangar/derived";

/** The directory of a dataset reserved for the platform's own files: it and everything below it stay out of listings. */
export const PLATFORM_FILES_ROOT = ".hangar";

/** The directory (relative to the dataset) holding the files derived from `sourceFileId`. */
export function derivedFilesDir(sourceFileId: string): string {
  return `${DERIVED_FILES_ROOT}/${sourceFileId}`;
}

/** Whether a dataset path is the platform's own (PLATFORM_FILES_ROOT or below), kept out of listings and upload events. */
export function isPlatformPath(relativePath: string): boolean {
  return relativePath === PLATFORM_FILES_ROOT || relativePath.startsWith(`${PLATFORM_FILES_ROOT}/`);
}
