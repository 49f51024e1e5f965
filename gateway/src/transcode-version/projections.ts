import type { DescField, DescMessage, Message } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { fieldValueToJson, findField } from "../transcode";

/**
 * Rewrites a response for a caller older than a dated change: returns the `data` JSON text to send
 * instead, or undefined to send the (possibly edited in place) message as usual.
 */
export type Projection = (message: Message) => string | undefined;

type LocalMessage = Record<string, unknown>;

/**
 * `data` becomes the list of each record's `field`: `dataField` must name a repeated message
 * field of `output` (the binding's `response_body`). Throws at start-up when it does not.
 */
export function pluckProjection(output: DescMessage, dataField: string | undefined, field: string): Projection {
  const list = dataField === undefined ? undefined : findField(output, [dataField]);
  if (list?.fieldKind !== "list" || list.listKind !== "message") {
    throw new Error(`${output.typeName}: a pluck needs a response_body naming a repeated message field`);
  }
  const item = findField(list.message, [field]);
  if (item === undefined) throw new Error(`${list.message.typeName} has no field '${field}' to pluck`);
  return (message) => {
    const items = (message as unknown as LocalMessage)[list.localName] as LocalMessage[];
    return `[${items.map((record) => fieldValueToJson(item, record[item.localName])).join(",")}]`;
  };
}

/**
 * `data` becomes the response's `field`: a singular message field of `output` (the record the RPC
 * answered alone before a batch envelope wrapped it), or a repeated one (the bare list an RPC
 * answered before it was paged: the tags lists before 2026-08-10). Throws at start-up otherwise.
 */
export function unwrapProjection(output: DescMessage, field: string): Projection {
  const record = findField(output, [field]);
  if (record?.fieldKind !== "message" && record?.fieldKind !== "list") throw new Error(`${output.typeName}: an unwrap needs a message or repeated field, '${field}' is neither`);
  return (message) => fieldValueToJson(record, (message as unknown as LocalMessage)[record.localName]);
}

/** Which records vanish: those of message type `record` whose `field` (proto name) equals `equals`. */
export interface HiddenRecords {
  record: string;
  field: string;
  equals: string;
}

/**
 * Records matching `hidden` vanish: removed from every list that holds them (directly or in a
 * singular field of the list's items), and a response that is, or singularly holds, one is a 404
 * naming `since`. Undefined when `output` cannot hold such a record, so the route pays nothing.
 */
export function hideProjection(output: DescMessage, hidden: HiddenRecords, since: string): Projection | undefined {
  const { record } = hidden;
  const hides = hider(output, hidden, new Set());
  if (hides === undefined) return undefined;
  const name = record.slice(record.lastIndexOf(".") + 1).toLowerCase();
  return (message) => {
    if (hides(message as unknown as LocalMessage)) {
      throw new ConnectError(`${name} not found: it needs API version ${since} or later`, Code.NotFound);
    }
    return undefined;
  };
}

/** True when the message must vanish; filters the lists below it in place. */
type Hider = (message: LocalMessage) => boolean;

function hider(desc: DescMessage, hidden: HiddenRecords, path: Set<DescMessage>): Hider | undefined {
  if (desc.typeName === hidden.record) return matcher(desc, hidden);
  if (desc.typeName.startsWith("google.protobuf.") || path.has(desc)) return undefined;
  path.add(desc);
  const parts: Hider[] = [];
  for (const field of desc.fields) {
    const inner = field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message") ? hider(field.message, hidden, path) : undefined;
    if (inner !== undefined) parts.push(field.fieldKind === "list" ? filterList(field, inner) : singular(field, inner));
  }
  path.delete(desc);
  if (parts.length === 0) return undefined;
  return (message) => parts.reduce((hide, part) => part(message) || hide, false);
}

function matcher(desc: DescMessage, { field, equals }: HiddenRecords): Hider {
  const compared = findField(desc, [field]);
  if (compared === undefined) throw new Error(`${desc.typeName} has no field '${field}' to hide records by`);
  return (message) => fieldValue(message, compared) === equals;
}

function filterList(field: DescField, inner: Hider): Hider {
  return (message) => {
    const items = message[field.localName] as LocalMessage[];
    const kept = items.filter((item) => !inner(item));
    if (kept.length !== items.length) message[field.localName] = kept;
    return false;
  };
}

function singular(field: DescField, inner: Hider): Hider {
  return (message) => {
    const value = fieldValue(message, field);
    return value !== undefined && inner(value as LocalMessage);
  };
}

/** A field's value in protobuf-es's local form: oneof members live under their oneof's name. */
function fieldValue(message: LocalMessage, field: DescField): unknown {
  if (field.oneof === undefined) return message[field.localName];
  const group = message[field.oneof.localName] as { case?: string; value?: unknown };
  return group.case === field.localName ? group.value : undefined;
}
