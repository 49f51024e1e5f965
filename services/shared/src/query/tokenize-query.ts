import { invalidArgument, quoteValue } from "../errors";

/** A lexical token of the text query language; `pos` is the 1-based character position. */
export type QueryToken =
  | { readonly kind: "word"; readonly text: string; readonly pos: number }
  | { readonly kind: "string"; readonly text: string; readonly value: string; readonly pos: number }
  | { readonly kind: "number"; readonly text: string; readonly value: number; readonly pos: number }
  | { readonly kind: "symbol"; readonly text: string; readonly pos: number }
  | { readonly kind: "end"; readonly text: string; readonly pos: number };

/** The longest query text accepted, a bound on parser work next to QUERY_LIMITS. */
export const MAX_QUERY_TEXT_LENGTH = 20_000;

const SYMBOLS = ["==", "!=", "<>", ">=", "<=", "=", ">", "<", "(", ")"];
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_.-]/;
const ESCAPES: Record<string, string | undefined> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"' };

/**
 * Splits query text into words (fields and keywords), quoted strings, numbers and symbols,
 * ending with an `end` token. Errors name `fieldName` and the position, e.g.
 * `query: unterminated string at position 9`.
 */
export function tokenizeQuery(text: string, fieldName: string): QueryToken[] {
  if (text.length > MAX_QUERY_TEXT_LENGTH) {
    throw invalidArgument(fieldName, `is longer than ${MAX_QUERY_TEXT_LENGTH} characters`);
  }
  const tokens: QueryToken[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i])) {
      i++;
      continue;
    }
    const token = readToken(text, i, fieldName);
    tokens.push(token);
    i += token.text.length;
  }
  tokens.push({ kind: "end", text: "end of query", pos: text.length + 1 });
  return tokens;
}

function readToken(text: string, i: number, fieldName: string): QueryToken {
  const ch = text[i];
  const pos = i + 1;
  if (ch === "'" || ch === '"') return { kind: "string", ...readString(text, i, fieldName), pos };
  if (WORD_START.test(ch)) return { kind: "word", text: readWord(text, i, fieldName), pos };
  NUMBER.lastIndex = i;
  const number = NUMBER.exec(text);
  if (number && !WORD_PART.test(text[i + number[0].length] ?? " ")) {
    return { kind: "number", text: number[0], value: Number(number[0]), pos };
  }
  const symbol = SYMBOLS.find((s) => text.startsWith(s, i));
  if (symbol) return { kind: "symbol", text: symbol, pos };
  throw invalidArgument(fieldName, `unexpected character ${quoteValue(ch)} at position ${pos}`);
}

// Words are fields or keywords; bracket selectors (`msgpaths[cpuload.load]`) stay inside the word.
function readWord(text: string, start: number, fieldName: string): string {
  let i = start;
  while (i < text.length) {
    if (text[i] === "[") {
      const close = text.indexOf("]", i);
      if (close < 0) throw invalidArgument(fieldName, `unterminated '[' at position ${i + 1}`);
      i = close + 1;
    } else if (WORD_PART.test(text[i])) {
      i++;
    } else {
      break;
    }
  }
  return text.slice(start, i);
}

// Backslash escapes the quote, a backslash, n, t and r; other escapes keep their backslash so
// LIKE patterns such as '50\%' reach the database unchanged. A doubled quote is a literal quote.
function readString(text: string, start: number, fieldName: string): { text: string; value: string } {
  const quote = text[start];
  let value = "";
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\\" && i + 1 < text.length) {
      const next = text[i + 1];
      value += ESCAPES[next] ?? ch + next;
      i += 2;
    } else if (ch === quote && text[i + 1] === quote) {
      value += quote;
      i += 2;
    } else if (ch === quote) {
      return { text: text.slice(start, i + 1), value };
    } else {
      value += ch;
      i++;
    }
  }
  throw invalidArgument(fieldName, `unterminated string at position ${start + 1}`);
}
