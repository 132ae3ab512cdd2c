/**
 * Values by key, at most `maxBytes` of them in all (each weighs `sizeOf` bytes): adding one past the
 * budget drops the least recently used first. A Map keeps insertion order, so re-inserting on each
 * hit makes its first key the least recently used. A value larger than the whole budget is not kept.
 */
export class ByteBoundedLru<V> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.delete(key);
    const size = this.sizeOf(value);
    if (size > this.maxBytes) return;
    this.entries.set(key, value);
    this.bytes += size;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= this.sizeOf(old);
    }
  }

  /** The bytes held now, never more than maxBytes. */
  get size(): number {
    return this.bytes;
  }

  private delete(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.bytes -= this.sizeOf(value);
  }
}
