import { globToRegex, invalidArgument, matchesAnyGlob } from "@hangar/shared";

/**
 * Git wildmatch pattern of a path with a component that starts with a dot (`.env`,
 * `.cache/run.bag`): no rule makes such a file ingestable, as the client SDK's
 * IngestionPathRule says (triggers never run on dotfiles).
 */
export const DOTFILE_PATTERN = ".**";

/** The path half of a rule: include then exclude patterns. */
export interface PathRule {
  includePatterns: readonly string[];
  excludePatterns: readonly string[];
}

/** What a rule excludes in effect: its exclude patterns and dotfiles. The managed trigger's target carries the same list. */
export function effectiveExcludes(rule: PathRule): string[] {
  return [...rule.excludePatterns, DOTFILE_PATTERN];
}

/** True when `path` matches an include pattern, no exclude pattern, and is not a dotfile (see globToRegex for `*`, `**`, `?`). */
export function rulePathMatches(rule: PathRule, path: string): boolean {
  return matchesAnyGlob(rule.includePatterns, path) && !matchesAnyGlob(effectiveExcludes(rule), path);
}

/**
 * Checks a rule's pattern list (the SDK's validators): include patterns need at least one that is
 * not blank, exclude patterns may be empty but none blank; no pattern starts with `!` (list it as
 * an exclude instead), and each is a glob globToRegex accepts. Errors name `field[i]`.
 */
export function checkPatterns(patterns: readonly string[], field: "include_patterns" | "exclude_patterns"): string[] {
  if (field === "include_patterns" && patterns.every((p) => p.trim() === "")) throw invalidArgument(field, "must list at least one pattern that is not blank");
  patterns.forEach((pattern, i) => {
    if (pattern.trim() === "") throw invalidArgument(`${field}[${i}]`, "must not be blank");
    if (pattern.startsWith("!")) throw invalidArgument(`${field}[${i}]`, "starts with '!'; list the pattern under exclude_patterns without the '!' instead");
    globToRegex(pattern, `${field}[${i}]`);
  });
  return [...patterns];
}
