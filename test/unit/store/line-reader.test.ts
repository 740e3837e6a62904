import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sniffer, forEachLine, jsonStringNear, readLines, type LineRef } from '../../../src-main/store/line-reader';
import { tempHome, type TempHome } from './helpers';

let tmp: TempHome;
let fd: number;
const LINES = [
  '{"a":1}',
  'x'.repeat(300),
  '',
  '{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","weft_mirror":true,"message":"hé \\"q\\"\\n"}}',
  'last',
];

beforeEach(async () => {
  tmp = await tempHome();
  const file = join(tmp.home, 'f.jsonl');
  writeFileSync(file, LINES.join('\n') + '\nto');
  fd = openSync(file, 'r');
});

afterEach(async () => {
  closeSync(fd);
  await tmp.dispose();
});

describe('line reading', () => {
  it('reports every complete line with its offset, whatever the chunk size, and the torn tail', () => {
    for (const chunkSize of [7, 64, 1 << 20]) {
      const seen: { text: string; offset: number }[] = [];
      const end = forEachLine(
        fd,
        0,
        (l) => seen.push({ text: l.buf.toString('utf8', l.start, l.end), offset: l.offset }),
        { chunkSize },
      );
      expect(seen.map((s) => s.text)).toEqual(LINES);
      const offsets: number[] = [];
      let offset = 0;
      for (const l of LINES) {
        offsets.push(offset);
        offset += Buffer.byteLength(l) + 1;
      }
      expect(seen.map((s) => s.offset)).toEqual(offsets);
      expect(end).toEqual({ end: offset, tailBytes: 2 });
    }
  });

  it('re-reads chosen lines in any order', () => {
    const refs: LineRef[] = [];
    forEachLine(fd, 0, (l) => refs.push({ offset: l.offset, length: l.end - l.start }));
    const wanted = [refs[4], refs[0], refs[3]].filter((r): r is LineRef => r !== undefined);
    const got: [number, string][] = [];
    readLines(fd, wanted, (l, i) => got.push([i, l.buf.toString('utf8', l.start, l.end)]));
    expect(got.sort()).toEqual([
      [0, 'last'],
      [1, '{"a":1}'],
      [2, LINES[3]],
    ]);
  });

  it('sniffs a line kind from its prefix, and reads a message without parsing the line', () => {
    const line = Buffer.from(LINES[3] ?? '');
    const s = new Sniffer();
    expect(s.sniff(line, 0, line.length)).toBe(true);
    expect({ type: s.type, event: s.event, mirror: s.mirror, ts: s.timestamp(line) }).toEqual({
      type: 'event_msg',
      event: 'user_message',
      mirror: true,
      ts: 't',
    });
    expect(jsonStringNear(line, 0, line.length, Buffer.from('"message":"'))).toBe('hé "q"\n');
    const odd = Buffer.from('{"type":"event_msg","timestamp":"t","payload":{}}');
    expect(s.sniff(odd, 0, odd.length)).toBe(false);
  });
});
