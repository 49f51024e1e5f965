import { invalidArgument } from "../errors";

/**
 * Translates a gitignore-style pattern into a regular expression over relative paths, valid both in
 * PostgreSQL (`~`) and in JavaScript, so a path matches the same in SQL and in a service:
 * `*` matches within one segment, `**` across segments, `?` one character; a pattern without a
 * slash matches the name at any depth (`*.csv`), one with a slash is anchored at the root
 * (`logs/*.txt`), and a trailing slash matches everything below a directory (`raw/`).
 */
export function globToRegex(pattern: string, field: string): string {
  let glob = pattern.trim();
  if (glob.length === 0) throw invalidArgument(field, "must not be empty");
  if (glob.startsWith("!")) throw invalidArgument(field, "negated patterns (!) are not supported");
  const directory = glob.endsWith("/");
  if (directory) glob = `${glob}**`;
  const anchored = glob.replace(/\/\*\*$/, "").includes("/");
  if (glob.startsWith("/")) glob = glob.slice(1);
  let regex = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      regex += slash ? "(.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") regex += "[^/]*";
    else if (c === "?") regex += "[^/]";
    else regex += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return anchored ? `^${regex}$` : `^(.*/)?${regex}$`;
}

/** True when `path` matches any of the gitignore-style patterns (see globToRegex). */
export function matchesAnyGlob(patterns: readonly string[], path: string): boolean {
  return patterns.some((pattern, i) => new RegExp(globToRegex(pattern, `patterns[${i}]`)).test(path));
}
