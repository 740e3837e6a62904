/** Runs async sections one at a time, in call order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  /** A section runs or waits to. */
  get busy(): boolean {
    return this.pending > 0;
  }

  run<T>(section: () => Promise<T>): Promise<T> {
    this.pending += 1;
    const done = (): void => {
      this.pending -= 1;
    };
    const result = this.tail.then(section, section).finally(done);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
