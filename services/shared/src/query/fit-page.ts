import { create, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { protobufSizeBound } from "./protobuf-size-bound";

/**
 * Bytes of records one page may carry. The gateway takes responses of up to 4 MiB from a service;
 * the rest is headroom for the page's other fields. A record is bounded by the request limits
 * (a dataset at every limit is under 1 MiB even as protobuf), so at least one always fits.
 */
export const PAGE_BUDGET_BYTES = 3 * 1024 * 1024;

/**
 * The leading records of a page that fit in PAGE_BUDGET_BYTES of protobuf (at least one): the page
 * size adapts, and the caller's next token starts after the last record kept, so a query over
 * large records answers smaller pages rather than a response too large to forward. A page whose
 * records' size bound (protobufSizeBound) is within the budget is kept whole without encoding a
 * record; only one that might not fit is measured exactly, one serialization per record (about
 * 15 microseconds for a topic of 3 message paths, 1.5 ms a page of 100 in bench:topics).
 */
export function fitPage<Desc extends DescMessage>(schema: Desc, records: MessageInitShape<Desc>[]): MessageInitShape<Desc>[] {
  if (boundedWithin(schema, records, PAGE_BUDGET_BYTES)) return records;
  return records.slice(0, fittingCount(records, (record) => protobufSize(schema, record)));
}

/** True when the records' protobuf size bounds add up to at most `budget` bytes (stops counting past it). */
function boundedWithin<Desc extends DescMessage>(schema: Desc, records: readonly MessageInitShape<Desc>[], budget: number): boolean {
  let bytes = 0;
  for (let i = 0; i < records.length && bytes <= budget; i++) bytes += protobufSizeBound(schema, records[i]!);
  return bytes <= budget;
}

/** How many of the leading `records` fit in PAGE_BUDGET_BYTES (at least one), for pages of mixed types. */
export function fittingCount<T>(records: readonly T[], sizeOf: (record: T) => number): number {
  let bytes = 0;
  for (let i = 0; i < records.length; i++) {
    bytes += sizeOf(records[i]!);
    if (bytes > PAGE_BUDGET_BYTES && i > 0) return i;
  }
  return records.length;
}

/** Bytes of a record as protobuf. */
export function protobufSize<Desc extends DescMessage>(schema: Desc, record: MessageInitShape<Desc>): number {
  return toBinary(schema, create(schema, record)).length;
}
