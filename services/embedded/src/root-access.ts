import { stat } from "node:fs/promises";
import path from "node:path";

/**
 * Run as root, embedded PostgreSQL switches to an unprivileged `postgres` user (PostgreSQL refuses
 * to run as root). That user must traverse every directory down to the server binaries in
 * `node_modules` and to the data directory, and a checkout under `/root` (mode 700) or a
 * `DATA_DIR` below a private directory stops it with a bare "permission denied" from initdb. This
 * names the directory and the fix before PostgreSQL starts. Nothing is checked when not root.
 */
export async function checkReachableByPostgresUser(paths: { dataDir: string; binary?: string }, uid = process.getuid?.()): Promise<void> {
  if (uid !== 0) return;
  // The data directory itself is created and chowned for that user; its parents must be passable.
  const targets = [path.dirname(path.resolve(paths.dataDir)), ...(paths.binary ? [path.resolve(paths.binary)] : [])];
  for (const target of targets) {
    const blocked = await firstClosedToOthers(target);
    if (blocked) {
      throw new Error(
        `running as root, the embedded PostgreSQL runs as the unprivileged user 'postgres', which cannot reach ${target}: ` +
          `${blocked} is not searchable by other users. Run as a non-root user, make it searchable (chmod o+x ${blocked}), ` +
          `or set DATA_DIR (and keep the checkout) under a directory other users can enter, or set DATABASE_URL to use your own PostgreSQL.`,
      );
    }
  }
}

/** The first of `target`'s directories (from `/`, the target included) without the execute bit for others. */
export async function firstClosedToOthers(target: string): Promise<string | undefined> {
  const parts = path.resolve(target).split(path.sep).filter(Boolean);
  for (let depth = 0; depth <= parts.length; depth++) {
    const dir = path.sep + parts.slice(0, depth).join(path.sep);
    const mode = (await stat(dir).catch(() => undefined))?.mode;
    // A path that does not exist yet is created later by the same start: nothing to enter below it.
    if (mode === undefined) return undefined;
    if ((mode & 0o001) === 0) return dir;
  }
  return undefined;
}
