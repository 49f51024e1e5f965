import { create, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";

/**
 * Bytes of records one page may carry. The gateway takes responses of up to 4 MiB from a service;
 * the rest is headroom for the page's other fields. A record is bounded by the request limits
 * (a dataset at every limit is under 1 MiB even as protobuf), so at least one always fits.
 */
export const PAGE_BUDGET_BYTES = 3 * 1024 * 1024;

/**
 * The leading records of a page that fit in PAGE_BUDGET_BYTES of protobuf (at least one): the page
 * size adapts, and the caller's next token starts after the last record kept, so a query over
 * large records answers smaller pages rather than a response too large to forward. Costs one
 * serialization per record (about a microsecond for a typical one).
 */
export function fitPage<Desc extends DescMessage>(schema: Desc, records: MessageInitShape<Desc>[]): MessageInitShape<Desc>[] {
  let bytes = 0;
  for (let i = 0; i < records.length; i++) {
    bytes += toBinary(schema, create(schema, records[i])).length;
    if (bytes > PAGE_BUDGET_BYTES && i > 0) return records.slice(0, i);
  }
  return records;
}
