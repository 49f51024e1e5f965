import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { compareKeys } from "./object-key";

/** An object's key, or a folder rolled up into a common prefix (`a/b/`). */
export type ListedEntry = { kind: "object"; key: string } | { kind: "prefix"; prefix: string };

/** Options of {@link walkKeys}. */
export interface WalkOptions {
  prefix: string;
  /** With a `/` delimiter, folders directly below the prefix are answered as common prefixes, not walked. */
  foldersAsPrefixes: boolean;
  /** Entries that sort at or before this key cannot matter to the caller and may be skipped. */
  after?: string;
}

/**
 * The keys under `root` that start with `prefix`, in S3's order (UTF-8 bytes), by a depth-first walk that
 * starts at the prefix's folder. Sorting a folder's entries as `name/` puts each subtree where its keys sort.
 */
export async function* walkKeys(root: string, options: WalkOptions): AsyncGenerator<ListedEntry> {
  const slash = options.prefix.lastIndexOf("/");
  const folderKey = options.prefix.slice(0, slash + 1);
  const namePrefix = options.prefix.slice(slash + 1);
  const segments = folderKey === "" ? [] : folderKey.slice(0, -1).split("/");
  // No stored key has such segments, so nothing can match.
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..") || options.prefix.includes("\0")) return;
  yield* walkFolder(join(root, ...segments), folderKey, namePrefix, options);
}

async function* walkFolder(folder: string, folderKey: string, namePrefix: string, options: WalkOptions): AsyncGenerator<ListedEntry> {
  const after = options.after;
  const entries = (await readFolder(folder))
    .filter((entry) => entry.name.startsWith(namePrefix) && (entry.isFile() || entry.isDirectory()))
    .map((entry) => ({ entry, sortKey: folderKey + entry.name + (entry.isDirectory() ? "/" : "") }))
    .sort((a, b) => compareKeys(a.sortKey, b.sortKey));
  for (const { entry, sortKey } of entries) {
    if (entry.isFile()) {
      if (after === undefined || compareKeys(sortKey, after) > 0) yield { kind: "object", key: sortKey };
      continue;
    }
    if (after !== undefined && compareKeys(sortKey, after) <= 0 && !after.startsWith(sortKey)) continue;
    const path = join(folder, entry.name);
    if (!options.foldersAsPrefixes) {
      yield* walkFolder(path, sortKey, "", options);
    } else if (await holdsAnyFile(path)) {
      // A folder left empty for a moment by a concurrent delete holds no object and is no prefix.
      yield { kind: "prefix", prefix: sortKey };
    }
  }
}

async function readFolder(folder: string): Promise<Dirent[]> {
  try {
    return await readdir(folder, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
}

async function holdsAnyFile(folder: string): Promise<boolean> {
  for (const entry of await readFolder(folder)) {
    if (entry.isFile() || (entry.isDirectory() && (await holdsAnyFile(join(folder, entry.name))))) return true;
  }
  return false;
}
