export {
  COMPARATORS,
  GROUP_OPERATORS,
  QUERY_LIMITS,
  VALUELESS_COMPARATORS,
  isConditionGroup,
  type Comparator,
  type Condition,
  type ConditionGroup,
  type ConditionValue,
  type GroupOperator,
  type QueryNode,
} from "./condition";
export { parseConditionJson } from "./parse-condition-json";
export { parseQueryText } from "./parse-query-text";
export { MAX_QUERY_TEXT_LENGTH } from "./tokenize-query";
export { MAX_FIELD_PATH_LENGTH, isValidFieldPath, splitFieldPath } from "./field-path";
export {
  createFieldCatalog,
  outerJoined,
  type ColumnCatalog,
  type ColumnDeclaration,
  type ColumnRef,
  type ColumnType,
  type FieldCatalog,
  type FieldCatalogOptions,
  type FieldRef,
  type RelatedRef,
  type Relation,
  type JsonRef,
} from "./field-catalog";
export { compileWhere } from "./compile-where";
export { jsonPathSql } from "./compile-json-predicate";
export { DEFAULT_SORT_BY, compileOrderBy, resolveSortDirection, sortableRef } from "./compile-order-by";
export { joinSql, rawSql, sql, type SqlFragment } from "./sql-fragment";
export { DEFAULT_LIMIT, MAX_LIMIT, resolveLimit } from "./resolve-limit";
export { MAX_CURSOR_TOKEN_CHARS, decodeCursorToken, decodePageToken, encodeCursorToken, encodePageToken, queryFingerprint, type PageCursor, type QueryShape } from "./page-token";
export { compileKeysetOrder, cursorOfRow, isStorableText, type KeysetOrder } from "./keyset-order";
export { planKeysetPage, type KeysetPage } from "./keyset-page";
export { listedPage, type ListedPage, type ListedRange, type ListingQuery, type OldestFirstRange } from "./listed-page";
export { PAGE_BUDGET_BYTES, fitPage, fittingCount, protobufSize } from "./fit-page";
export { conditionOfValue, planSearch, type QuerySpecInput, type SearchPlan, type SearchTarget } from "./plan-search";
export { isDecimalString, normalizeIsoTimestamp, parseIsoTimestamp } from "./value-formats";
export { MAX_PATTERN_CHARS, MAX_PATTERN_WILDCARDS, globToRegex, matchesAnyGlob } from "./glob";
export {
  COUNT_CAP,
  countUpTo,
  estimateRows,
  keysetPageRows,
  keysetPageSql,
  keysetPageWithTotal,
  keysetRangesSql,
  type ExecuteSql, type KeysetPageRows, type KeysetSearch } from "./keyset-page-rows";
export { matchesFirstPage, WALK_ROWS, type MatchesFirstPage, type SearchSource } from "./matches-first-page";
