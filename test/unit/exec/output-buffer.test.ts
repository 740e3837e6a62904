import { describe, expect, it } from 'vitest';
import { RetainedOutput } from '../../../src-main/tools/exec/output-buffer';

describe('RetainedOutput', () => {
  it('keeps everything below the cap', () => {
    const buf = new RetainedOutput(100);
    buf.push('hello ');
    buf.push('world');
    expect(buf.drain()).toEqual({ head: 'hello world', omittedBytes: 0, tail: '' });
    expect(buf.isEmpty).toBe(true);
  });

  it('keeps the first and the last half of the cap and counts what it dropped', () => {
    const buf = new RetainedOutput(20);
    for (let i = 0; i < 10; i++) buf.push(String(i).repeat(5)); // 50 bytes
    expect(buf.drain()).toEqual({ head: '0000011111', omittedBytes: 30, tail: '8888899999' });
  });

  it('cuts on character boundaries', () => {
    const buf = new RetainedOutput(8);
    buf.push('€€€'); // 9 bytes; head gets one € (3 of 4 bytes), the rest goes to the tail
    buf.push('€€');
    const parts = buf.drain();
    expect(parts).toEqual({ head: '€', omittedBytes: 9, tail: '€' });
  });

  it('stays bounded with many small chunks', () => {
    const buf = new RetainedOutput(1024);
    for (let i = 0; i < 100_000; i++) buf.push('x');
    buf.push('END');
    const parts = buf.peek();
    expect(parts.head.length + parts.tail.length).toBe(1024);
    expect(parts.omittedBytes).toBe(100_003 - 1024);
    expect(parts.tail.endsWith('END')).toBe(true);
  });
});
