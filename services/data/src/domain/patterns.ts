import { invalidArgument } from "@hangar/shared";

/**
 * Translates a gitignore-style pattern into a PostgreSQL regular expression over relative paths:
 * `*` matches within one segment, `**` across segments, `?` one character; a pattern without a
 * slash matches the name at any depth (`*.csv`), one with a slash is anchored at the root
 * (`logs/*.txt`), and a trailing slash matches everything below a directory (`raw/`).
 */
export function globToRegex(pattern: string, field: string): string {
  let glob = pattern.trim();
  if (glob.length === 0) throw invalidArgument(field, "must not be empty");
  if (glob.startsWith("!")) throw invalidArgument(field, "negated patterns are not supported: use exclude_patterns");
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
