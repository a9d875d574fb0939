/**
 * The bytes that answers read at once may hold in all. Each read takes its share (the most it reads of its answer,
 * the maxAnswerBytes it is sent with) before it is sent, and gives it back once done; one that does not fit beside
 * the reads under way waits its turn, first come first served. A read larger than the whole goes alone.
 */
export class AnswerBudget {
  private held = 0;
  private readonly waiting: Array<{ bytes: number; go: () => void }> = [];

  constructor(readonly total: number) {}

  /** `read`, given the `bytes` its answer may hold, once they fit beside the reads under way. */
  async reading<T>(bytes: number, read: (bytes: number) => Promise<T>): Promise<T> {
    await this.take(bytes);
    try {
      return await read(bytes);
    } finally {
      this.give(bytes);
    }
  }

  private fits(bytes: number): boolean {
    return this.held === 0 || this.held + bytes <= this.total;
  }

  private take(bytes: number): Promise<void> {
    if (this.waiting.length === 0 && this.fits(bytes)) {
      this.held += bytes;
      return Promise.resolve();
    }
    return new Promise((go) => this.waiting.push({ bytes, go }));
  }

  private give(bytes: number): void {
    this.held -= bytes;
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) {
      const next = this.waiting.shift()!;
      this.held += next.bytes;
      next.go();
    }
  }
}
