/** HTTP/2 frame types (RFC 9113 §6). */
export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

/** Frame flags; END_STREAM and ACK share a bit on different frame types. */
export const Flags = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

/** Error codes of RST_STREAM and GOAWAY (RFC 9113 §7). */
export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
} as const;

/** SETTINGS identifiers (RFC 9113 §6.5.2). */
export const Setting = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

/** The client connection preface (RFC 9113 §3.4). */
export const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

export const FRAME_HEADER_BYTES = 9;
/** The frame size every endpoint must accept, and the peer's limit until its SETTINGS say otherwise. */
export const DEFAULT_MAX_FRAME_SIZE = 16_384;
export const DEFAULT_WINDOW_SIZE = 65_535;
export const MAX_WINDOW_SIZE = 2 ** 31 - 1;

/** One frame with its 9-byte header and `payload` after it. */
export function frame(type: number, flags: number, streamId: number, payload?: Uint8Array): Buffer {
  const length = payload?.length ?? 0;
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  out.writeUIntBE(length, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(streamId, 5);
  if (payload) out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

/** A SETTINGS frame carrying `values` as [identifier, value] pairs. */
export function settingsFrame(values: readonly (readonly [number, number])[]): Buffer {
  const payload = Buffer.allocUnsafe(values.length * 6);
  values.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, i * 6);
    payload.writeUInt32BE(value, i * 6 + 2);
  });
  return frame(FrameType.SETTINGS, 0, 0, payload);
}

export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(increment, 0);
  return frame(FrameType.WINDOW_UPDATE, 0, streamId, payload);
}

export function rstStreamFrame(streamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(code, 0);
  return frame(FrameType.RST_STREAM, 0, streamId, payload);
}

export function goAwayFrame(lastStreamId: number, code: number): Buffer {
  const payload = Buffer.allocUnsafe(8);
  payload.writeUInt32BE(lastStreamId, 0);
  payload.writeUInt32BE(code, 4);
  return frame(FrameType.GOAWAY, 0, 0, payload);
}

/**
 * A frame's payload without its padding (PADDED flag: a length byte first, that many bytes last);
 * undefined when the padding does not fit, a PROTOCOL_ERROR.
 */
export function unpadded(payload: Buffer, flags: number): Buffer | undefined {
  if ((flags & Flags.PADDED) === 0) return payload;
  if (payload.length < 1) return undefined;
  const padLength = payload[0]!;
  if (padLength >= payload.length) return undefined;
  return payload.subarray(1, payload.length - padLength);
}
