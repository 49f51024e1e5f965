/** How many characters of a caller's value an error message quotes. */
export const QUOTE_PREFIX_CHARS = 64;

/** The longest error message sent to a caller; longer ones are cut (see capMessage). */
export const MAX_ERROR_MESSAGE_CHARS = 1024;

/**
 * Quotes a caller's value for an error message: `'value'`, or its first 64 characters then `...'`
 * when longer, so that a message names the value without echoing a large one (a 1 MiB value inside
 * a gRPC status message once reset the stream that carried it).
 */
export function quoteValue(value: unknown): string {
  const text = String(value);
  return text.length <= QUOTE_PREFIX_CHARS ? `'${text}'` : `'${prefix(text, QUOTE_PREFIX_CHARS)}...'`;
}

/**
 * Cuts an error message to MAX_ERROR_MESSAGE_CHARS (ending it with `...`). Applied to every
 * message where it leaves a service and where the gateway writes its error envelope, so no
 * handler's message can grow a response or a trailer without bound.
 */
export function capMessage(message: string): string {
  if (message.length <= MAX_ERROR_MESSAGE_CHARS) return message;
  return `${prefix(message, MAX_ERROR_MESSAGE_CHARS - 3)}...`;
}

/** The first `length` UTF-16 units of `text`, less a high surrogate left without its pair. */
function prefix(text: string, length: number): string {
  const cut = text.slice(0, length);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
