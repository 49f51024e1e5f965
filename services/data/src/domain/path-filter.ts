import { globToRegex, joinSql, rawSql, sql, textArrayLiteral, type SqlFragment } from "@hangar/shared";

/**
 * A WHERE fragment over `f.relative_path` for gitignore-style include and exclude patterns (field
 * names for errors: `include_patterns[i]`, `exclude_patterns[i]`). No include pattern means all.
 */
export function pathPatternFilter(includePatterns: readonly string[], excludePatterns: readonly string[]): SqlFragment {
  const include = includePatterns.map((p, i) => globToRegex(p, `include_patterns[${i}]`));
  const exclude = excludePatterns.map((p, i) => globToRegex(p, `exclude_patterns[${i}]`));
  return joinSql(
    [
      include.length ? sql`f.relative_path ~ any(${textArrayLiteral(include)}::text[])` : rawSql("true"),
      exclude.length ? sql`not (f.relative_path ~ any(${textArrayLiteral(exclude)}::text[]))` : rawSql("true"),
    ],
    " and ",
  );
}

