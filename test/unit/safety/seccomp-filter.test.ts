// The seccomp program is checked by running it: a small classic-BPF interpreter evaluates it for
// system calls of both architectures (the real kernel runs it in the sandbox escape suite, on x86-64).
import { describe, expect, it } from 'vitest';
import { seccompArchOf, unixSocketFilter, type SeccompArch } from '../../../src-main/safety/sandbox/seccomp-filter';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const AUDIT = { x64: 0xc000003e, arm64: 0xc00000b7, i386: 0x40000003 } as const;

/** Runs the program on struct seccomp_data {nr, arch, ip, args}. Supports what the filter uses. */
function run(program: Buffer, data: { nr: number; arch: number; arg0: number }): number {
  const word = (offset: number): number => {
    if (offset === 0) return data.nr >>> 0;
    if (offset === 4) return data.arch >>> 0;
    if (offset === 16) return data.arg0 >>> 0;
    throw new Error(`unexpected load at ${offset}`);
  };
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20:
        acc = word(k);
        break;
      case 0x15:
        pc += acc === k ? jt : jf;
        break;
      case 0x35:
        pc += acc >= k ? jt : jf;
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`unexpected opcode ${code.toString(16)}`);
    }
  }
  throw new Error('the program fell off its end');
}

const cases: [SeccompArch, { socket: number; connect: number; socketpair: number }][] = [
  ['x64', { socket: 41, connect: 42, socketpair: 53 }],
  ['arm64', { socket: 198, connect: 203, socketpair: 199 }],
];

describe.each(cases)('the unix socket filter (%s)', (arch, nr) => {
  const program = unixSocketFilter(arch);
  const native = (n: number, arg0 = 0): number => run(program, { nr: n, arch: AUDIT[arch], arg0 });

  it('refuses socket(AF_UNIX) and io_uring, allows other sockets, socketpair and connect', () => {
    expect(native(nr.socket, 1)).toBe(EPERM);
    expect(native(nr.socket, 0x1_0000_0001)).toBe(EPERM);
    expect(native(nr.socket, 2)).toBe(ALLOW);
    expect(native(nr.socket, 10)).toBe(ALLOW);
    expect(native(nr.socketpair, 1)).toBe(ALLOW);
    expect(native(nr.connect, 3)).toBe(ALLOW);
    for (const n of [425, 426, 427]) expect(native(n)).toBe(EPERM);
    expect(native(0)).toBe(ALLOW);
  });

  it('refuses every call of another ABI', () => {
    expect(run(program, { nr: 0, arch: AUDIT.i386, arg0: 0 })).toBe(EPERM);
    expect(run(program, { nr: 0, arch: arch === 'x64' ? AUDIT.arm64 : AUDIT.x64, arg0: 0 })).toBe(EPERM);
  });
});

describe('architectures', () => {
  it('refuses x32 calls on x86-64 and knows only x64 and arm64', () => {
    expect(run(unixSocketFilter('x64'), { nr: 0x40000000 + 41, arch: AUDIT.x64, arg0: 1 })).toBe(EPERM);
    expect(run(unixSocketFilter('x64'), { nr: 0x40000000, arch: AUDIT.x64, arg0: 0 })).toBe(EPERM);
    expect([seccompArchOf('x64'), seccompArchOf('arm64'), seccompArchOf('ia32')]).toEqual(['x64', 'arm64', null]);
  });
});
