// How big a Buffer some work allocates at most: Node's fs reads and zlib allocate through Buffer's own
// functions, so spying on them sees what a read of a whole file or a compressed copy would cost.
import { vi } from 'vitest';

/** Runs `work`, returning its result and the size of the largest Buffer made through Buffer's functions meanwhile. */
export async function largestBuffer<T>(work: () => Promise<T>): Promise<{ result: T; largest: number }> {
  let largest = 0;
  const spied = (['allocUnsafe', 'allocUnsafeSlow', 'alloc', 'concat'] as const).map((name) => {
    const original = Buffer[name] as (...args: unknown[]) => Buffer;
    const counting = (...args: unknown[]): Buffer => {
      const made = original.apply(Buffer, args);
      largest = Math.max(largest, made.length);
      return made;
    };
    return vi.spyOn(Buffer, name).mockImplementation(counting as never);
  });
  try {
    return { result: await work(), largest };
  } finally {
    for (const spy of spied) spy.mockRestore();
  }
}
