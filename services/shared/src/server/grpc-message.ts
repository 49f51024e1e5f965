/**
 * gRPC's length-prefixed message, uncompressed: a flag byte (0), the length as a 4-byte big-endian
 * integer, then the protobuf bytes. Unary calls carry exactly one in each direction.
 */
export function frameGrpcMessage(payload: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(5 + payload.length);
  framed[0] = 0;
  framed.writeUInt32BE(payload.length, 1);
  framed.set(payload, 5);
  return framed;
}

/** The one message of a unary call's body; throws an Error saying what is wrong with the framing. */
export function unframeGrpcMessage(body: Buffer): Buffer {
  if (body.length < 5) throw new Error("no message");
  if (body[0] !== 0) throw new Error("a compressed message, though no compression was negotiated");
  if (body.length !== 5 + body.readUInt32BE(1)) throw new Error("not exactly one message");
  return body.subarray(5);
}
