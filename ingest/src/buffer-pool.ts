/**
 * Reuses the buffers of derived chunks, input chunks and decompressed records. Node frees a buffer
 * only when V8 collects its owner, and V8 collects on JavaScript heap pressure, which the split
 * barely makes (it copies bytes between buffers): fresh 1 MiB buffers per chunk piled up as garbage
 * and took peak RSS past 256 MB.
 * Buffers are pooled by exact size, at most `perSize` of each.
 */
export class BufferPool {
  private readonly free = new Map<number, Uint8Array[]>();

  constructor(private readonly perSize = 32) {}

  /** A buffer of `size` bytes, reused when one is free; its contents are arbitrary. */
  take(size: number): Uint8Array {
    return this.free.get(size)?.pop() ?? Buffer.allocUnsafeSlow(size);
  }

  /**
   * A buffer of at least `size` bytes, its length rounded up to a power of two, so that reads of
   * varying lengths (input chunks) reuse a few buffers; give it back whole, not a view of it.
   */
  takeAtLeast(size: number): Uint8Array {
    return this.take(2 ** Math.ceil(Math.log2(Math.max(size, 1))));
  }

  /** Returns a buffer taken from this pool, once nothing reads it any more. */
  give(buffer: Uint8Array): void {
    const list = this.free.get(buffer.byteLength) ?? [];
    if (list.length < this.perSize) list.push(buffer);
    this.free.set(buffer.byteLength, list);
  }
}
