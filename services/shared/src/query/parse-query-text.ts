import { invalidArgument, quoteValue } from "../errors";
import {
  buildCondition,
  COMPARATORS,
  isComparator,
  QUERY_LIMITS,
  VALUELESS_COMPARATORS,
  type Comparator,
  type Condition,
  type ConditionValue,
  type QueryNode,
} from "./condition";
import { isValidFieldPath } from "./field-path";
import { tokenizeQuery, type QueryToken } from "./tokenize-query";

const SYMBOL_COMPARATORS: Record<string, Comparator | undefined> = {
  "=": "EQUALS",
  "==": "EQUALS",
  "!=": "NOT_EQUALS",
  "<>": "NOT_EQUALS",
  ">": "GREATER_THAN",
  ">=": "GREATER_THAN_OR_EQUAL",
  "<": "LESS_THAN",
  "<=": "LESS_THAN_OR_EQUAL",
};
const RESERVED = new Set(["AND", "OR", "NOT"]);

/**
 * Parses the text query language (`created > '2025-04-05' AND NOT (tags CONTAINS 'x')`) into the
 * same AST as parseConditionJson. AND binds tighter than OR; keywords are case-insensitive; errors
 * name `fieldName` and the 1-based position, e.g. `query: unexpected ')' at position 17`.
 */
export function parseQueryText(text: string, fieldName = "query"): QueryNode {
  return new QueryParser(tokenizeQuery(text, fieldName), fieldName).parse();
}

class QueryParser {
  private index = 0;
  private nesting = 0;
  private conditions = 0;

  constructor(
    private readonly tokens: readonly QueryToken[],
    private readonly fieldName: string,
  ) {}

  parse(): QueryNode {
    if (this.peek().kind === "end") throw invalidArgument(this.fieldName, "must not be empty");
    const node = this.parseJoined("OR");
    const rest = this.peek();
    if (rest.kind !== "end") throw this.error(`unexpected ${describe(rest)}`, rest);
    return node;
  }

  // OR joins AND-terms and AND joins unary terms, which gives AND the tighter binding.
  private parseJoined(operator: "AND" | "OR"): QueryNode {
    const parseTerm = () => (operator === "OR" ? this.parseJoined("AND") : this.parseUnary());
    const conditions = [parseTerm()];
    while (this.acceptWord(operator)) conditions.push(parseTerm());
    return conditions.length === 1 ? conditions[0]! : { operator, conditions };
  }

  private parseUnary(): QueryNode {
    const token = this.peek();
    if (this.acceptWord("NOT")) {
      return this.nested(token, () => ({ operator: "NOT", conditions: [this.parseUnary()] }));
    }
    if (token.kind === "symbol" && token.text === "(") {
      this.index++;
      const node = this.nested(token, () => this.parseJoined("OR"));
      this.expectSymbol(")");
      return node;
    }
    return this.parseComparison();
  }

  private parseComparison(): Condition {
    const token = this.next();
    if (token.kind !== "word" || RESERVED.has(token.text.toUpperCase())) {
      throw this.error(`expected a field, found ${describe(token)}`, token);
    }
    if (!isValidFieldPath(token.text)) throw this.error(`invalid field ${quoteValue(token.text)}`, token);
    if (++this.conditions > QUERY_LIMITS.maxConditions) {
      throw this.error(`a query may hold at most ${QUERY_LIMITS.maxConditions} conditions`, token);
    }
    const comparator = this.parseComparator();
    const value = VALUELESS_COMPARATORS.has(comparator) ? undefined : this.parseValue(comparator);
    return buildCondition(token.text, comparator, value, this.fieldName);
  }

  // Keyword comparators may span words (IS NOT NULL, BEGINS WITH); words are joined with "_" as
  // long as the result is still the start of a comparator, so BEGINS_WITH works spelled either way.
  private parseComparator(): Comparator {
    const token = this.next();
    if (token.kind === "symbol" && SYMBOL_COMPARATORS[token.text]) return SYMBOL_COMPARATORS[token.text]!;
    if (token.kind !== "word") throw this.error(`expected a comparator, found ${describe(token)}`, token);
    let name = token.text.toUpperCase();
    while (!isComparator(name) && startsComparator(name) && this.peek().kind === "word") {
      name += "_" + this.next().text.toUpperCase();
    }
    if (!isComparator(name)) throw this.error(`unknown comparator ${quoteValue(name.replaceAll("_", " "))}`, token);
    return name;
  }

  private parseValue(comparator: Comparator): ConditionValue | null {
    const token = this.next();
    if (token.kind === "string" || token.kind === "number") return token.value;
    const word = token.kind === "word" ? token.text.toLowerCase() : "";
    if (word === "true" || word === "false") return word === "true";
    if (word === "null" && (comparator === "EQUALS" || comparator === "NOT_EQUALS")) return null;
    if (word === "null") throw this.error("null can only be compared with = or !=", token);
    throw this.error(`expected a value, found ${describe(token)}`, token);
  }

  private nested<T>(token: QueryToken, parse: () => T): T {
    if (++this.nesting > QUERY_LIMITS.maxDepth) {
      throw this.error(`parentheses and NOT nest deeper than ${QUERY_LIMITS.maxDepth} levels`, token);
    }
    const result = parse();
    this.nesting--;
    return result;
  }

  private acceptWord(word: string): boolean {
    const token = this.peek();
    if (token.kind !== "word" || token.text.toUpperCase() !== word) return false;
    this.index++;
    return true;
  }

  private expectSymbol(symbol: string): void {
    const token = this.next();
    if (token.kind !== "symbol" || token.text !== symbol) {
      throw this.error(`expected ${quoteValue(symbol)}, found ${describe(token)}`, token);
    }
  }

  private peek(): QueryToken {
    return this.tokens[this.index]!;
  }

  // The final `end` token is never consumed, so peek() and next() always have a token.
  private next(): QueryToken {
    const token = this.peek();
    if (token.kind !== "end") this.index++;
    return token;
  }

  private error(problem: string, token: QueryToken) {
    return invalidArgument(this.fieldName, `${problem} at position ${token.pos}`);
  }
}

function startsComparator(prefix: string): boolean {
  return COMPARATORS.some((c) => c.startsWith(prefix + "_"));
}

function describe(token: QueryToken): string {
  return token.kind === "end" ? "end of query" : quoteValue(token.text);
}
