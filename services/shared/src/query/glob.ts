import { invalidArgument } from "../errors";

/**
 * Most wildcards (`*`, `**`, `?`) in one pattern. PostgreSQL's regular expressions grow costly
 * with them: 10 patterns of 1,000 `*` over 2,000 paths ran past 20 s, and 333 `**\/` took 6 s,
 * while 16 wildcards take 16-120 ms (measured on the development machine). Real globs use a few.
 */
export const MAX_PATTERN_WILDCARDS = 16;

/**
 * Longest pattern, as the protos declare on their pattern lists; checked here too because some
 * patterns arrive inside JSON values (an update's `required_inputs`), which the declared limits
 * bound only as a whole.
 */
export const MAX_PATTERN_CHARS = 1000;

/**
 * Translates a gitignore-style pattern into a regular expression over relative paths, valid both in
 * PostgreSQL (`~`) and in JavaScript, so a path matches the same in SQL and in a service:
 * `*` matches within one segment, `**` across segments, `?` one character; a pattern without a
 * slash matches the name at any depth (`*.csv`), one with a slash is anchored at the root
 * (`logs/*.txt`), and a trailing slash matches everything below a directory (`raw/`). A pattern
 * longer than MAX_PATTERN_CHARS, or with more than MAX_PATTERN_WILDCARDS wildcards, is
 * INVALID_ARGUMENT naming `field`.
 */
export function globToRegex(pattern: string, field: string): string {
  let glob = pattern.trim();
  if (glob.length === 0) throw invalidArgument(field, "must not be empty");
  if (glob.length > MAX_PATTERN_CHARS && [...glob].length > MAX_PATTERN_CHARS) throw invalidArgument(field, `at most ${MAX_PATTERN_CHARS} characters`);
  if (glob.startsWith("!")) throw invalidArgument(field, "negated patterns (!) are not supported");
  const directory = glob.endsWith("/");
  if (directory) glob = `${glob}**`;
  const anchored = glob.replace(/\/\*\*$/, "").includes("/");
  if (glob.startsWith("/")) glob = glob.slice(1);
  let regex = "";
  let wildcards = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if ((c === "*" || c === "?") && ++wildcards > MAX_PATTERN_WILDCARDS) {
      throw invalidArgument(field, `at most ${MAX_PATTERN_WILDCARDS} wildcards (*, ** or ?)`);
    }
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
