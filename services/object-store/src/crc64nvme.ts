// The table of the reflected polynomial 0x9a6c9329ac4bc9b5, as 32-bit halves: BigInt per byte would be slow.
const [HIGH, LOW] = (() => {
  const high = new Uint32Array(256);
  const low = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let h = 0;
    let l = n;
    for (let k = 0; k < 8; k++) {
      const carry = l & 1;
      l = ((l >>> 1) | ((h & 1) << 31)) >>> 0;
      h = h >>> 1;
      if (carry) {
        h = (h ^ 0x9a6c9329) >>> 0;
        l = (l ^ 0xac4bc9b5) >>> 0;
      }
    }
    high[n] = h;
    low[n] = l;
  }
  return [high, low] as const;
})();

/** A running CRC-64/NVME (the newest checksum S3 clients offer), as big-endian bytes when done. */
export class Crc64Nvme {
  private high = 0xffffffff;
  private low = 0xffffffff;

  update(data: Uint8Array): void {
    let { high, low } = this;
    for (let i = 0; i < data.length; i++) {
      const index = (low ^ data[i]!) & 0xff;
      low = (((low >>> 8) | ((high & 0xff) << 24)) ^ LOW[index]!) >>> 0;
      high = ((high >>> 8) ^ HIGH[index]!) >>> 0;
    }
    this.high = high;
    this.low = low;
  }

  digest(): Buffer {
    const bytes = Buffer.alloc(8);
    bytes.writeUInt32BE(~this.high >>> 0, 0);
    bytes.writeUInt32BE(~this.low >>> 0, 4);
    return bytes;
  }
}
