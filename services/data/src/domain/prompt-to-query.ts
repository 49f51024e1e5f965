import { invalidArgument, parseQueryText } from "@hangar/shared";
import type { QueryTargetName } from "./query-targets";

/** A prompt translated: text in the query language and the target it asks about. */
export interface TranslatedQuery {
  query: string;
  target: QueryTargetName;
}

/**
 * Turns a question in plain words into a query. The assistant service will answer with a language
 * model behind this interface; until it exists, `ruleBasedProvider` answers the simple questions.
 */
export interface ModelProvider {
  promptToQuery(prompt: string): Promise<TranslatedQuery>;
}

const TARGET_WORDS: readonly [RegExp, QueryTargetName][] = [
  [/\bdatasets?\b/i, "datasets"],
  [/\bmessage ?paths?\b/i, "topic_message_paths"],
  [/\btopics?\b/i, "topics"],
  [/\bfiles?\b/i, "files"],
  [/\bevents?\b/i, "events"],
];

// Each rule reads one phrase to one condition; values are re-quoted, so a prompt cannot inject syntax.
const RULES: readonly { pattern: RegExp; condition(match: RegExpMatchArray, target: QueryTargetName): string }[] = [
  { pattern: /\b(?:tagged|with (?:the )?tag)\s+['"]?([\w./-]+)['"]?/gi, condition: (m) => `tags CONTAINS ${quote(m[1]!)}` },
  { pattern: /\bwith (?:an? |the )?['"]?(\/[\w./-]*)['"]? topic\b|\bwith (?:a )?topic (?:named |called )?['"]?([\w./-]+)['"]?/gi, condition: (m, t) => `${t === "topics" ? "" : "topic."}topic_name = ${quote(m[1] ?? m[2]!)}` },
  { pattern: /(?<!topic )\b(?:named|called)\s+['"]?([\w./-]+)['"]?/gi, condition: (_m, t) => `${nameField(t)} = ${quote(_m[1]!)}` },
  { pattern: /\b(?:where|with)\s+([A-Za-z_][\w.]*)\s+(?:is|=|equals)\s+['"]?([\w./-]+)['"]?/gi, condition: (m) => `metadata.${m[1]} = ${literal(m[2]!)}` },
  { pattern: /\bcreated (after|since|before)\s+(\d{4}-\d{2}-\d{2})\b/gi, condition: (m) => `created ${/before/i.test(m[1]!) ? "<" : ">"} ${quote(m[2]!)}` },
  { pattern: /\b(?:of|from) device\s+['"]?([\w./-]+)['"]?/gi, condition: (m) => `device_id = ${quote(m[1]!)}` },
];

/**
 * The built-in provider: deterministic, rule-based. The target is the first resource the prompt
 * names (datasets when none); phrases such as "tagged X", "with a /lidar topic", "named X",
 * "where key is value", "created after 2025-01-01" and "from device X" become conditions joined by
 * AND. A prompt none of them reads is a 400 naming `prompt`.
 */
export const ruleBasedProvider: ModelProvider = {
  promptToQuery(prompt) {
    const target = targetOfPrompt(prompt);
    const conditions = RULES.flatMap((rule) => [...prompt.matchAll(rule.pattern)].map((m) => rule.condition(m, target)));
    if (conditions.length === 0) {
      throw invalidArgument("prompt", "could not be translated; ask e.g. 'datasets tagged rain with a /lidar topic created after 2025-01-01'");
    }
    const query = conditions.join(" AND ");
    parseQueryText(query, "prompt");
    return Promise.resolve({ query, target });
  },
};

// The resource named first is what the prompt asks for ("datasets with a /lidar topic" asks for datasets).
function targetOfPrompt(prompt: string): QueryTargetName {
  let best: { at: number; target: QueryTargetName } = { at: Number.POSITIVE_INFINITY, target: "datasets" };
  for (const [pattern, target] of TARGET_WORDS) {
    const at = prompt.search(pattern);
    if (at >= 0 && at < best.at) best = { at, target };
  }
  return best.target;
}

function nameField(target: QueryTargetName): string {
  if (target === "topics") return "topic_name";
  if (target === "topic_message_paths") return "message_path";
  if (target === "files") return "relative_path";
  return "name";
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

// Numbers and booleans stay typed (metadata compares by JSON type); anything else is a string.
function literal(value: string): string {
  return /^-?\d+(\.\d+)?$/.test(value) || /^(true|false)$/i.test(value) ? value.toLowerCase() : quote(value);
}
