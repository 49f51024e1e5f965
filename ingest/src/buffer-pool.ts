/**
 * Reuses the derived chunks' buffers. Node frees a buffer only when V8 collects its owner, and V8
 * collects on JavaScript heap pressure, which the split barely makes (it copies bytes between
 * buffers): fresh 1 MiB buffers per chunk piled up as garbage and took peak RSS past 256 MB.
 * Buffers are pooled by exact size, at most `perSize` of each.
 */
export class BufferPool {
  private readonly free = new Map<number, Uint8Array[]>();

  constructor(private readonly perSize = 32) {}

  /** A buffer of `size` bytes, reused when one is free; its contents are arbitrary. */
  take(size: number): Uint8Array {
    return this.free.get(size)?.pop() ?? Buffer.allocUnsafeSlow(size);
  }

  /** Returns a buffer taken from this pool, once nothing reads it any more. */
  give(buffer: Uint8Array): void {
    const list = this.free.get(buffer.byteLength) ?? [];
    if (list.length < this.perSize) list.push(buffer);
    this.free.set(buffer.byteLength, list);
  }
}
