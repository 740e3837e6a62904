// Hand-written on purpose: the npm bindings to libseccomp are native addons (rebuilt per Node and Electron);
// this fixed program of a few dozen instructions is plain bytes, run by the kernel in the sandbox escape suite.
// The seccomp program that keeps sandboxed commands away from the host's unix sockets when the network
// is off. bwrap's network namespace already cuts TCP/UDP and abstract unix sockets (they belong to a
// network namespace), but a unix socket bound to a path (docker.sock, the ssh agent, D-Bus) is reached
// through the filesystem, which the sandbox can read. So this filter refuses, with EPERM:
//
// - socket(AF_UNIX, …)           no new unix socket can be made, so none can connect to a path
//                                (socketpair stays allowed: it makes a connected pair, no address);
// - io_uring_setup/enter/register io_uring submits socket operations that seccomp never sees;
// - every x32 system call        (x86-64) the x32 ABI has its own socket call numbers;
// - every call of another ABI    (i386 on x86-64, arm32 on arm64) it has its own numbers too.
//
// The program is classic BPF (struct sock_filter: u16 code, u8 jt, u8 jf, u32 k, little-endian), built
// here for x86-64 and aarch64 and handed to `bwrap --seccomp FD`, which loads it with no_new_privs after
// setting up the namespaces: it works unprivileged and as root.

export type SeccompArch = 'x64' | 'arm64';

/** Kernel numbers for the system calls the filter looks at (arch/x86/entry/syscalls, asm-generic). */
const ARCHES: Record<SeccompArch, { auditArch: number; socket: number; ioUring: number[]; x32: boolean }> = {
  // AUDIT_ARCH_X86_64 = EM_X86_64 (62) | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE
  x64: { auditArch: 0xc000003e, socket: 41, ioUring: [425, 426, 427], x32: true },
  // AUDIT_ARCH_AARCH64 = EM_AARCH64 (183) | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE
  arm64: { auditArch: 0xc00000b7, socket: 198, ioUring: [425, 426, 427], x32: false },
};

// Opcodes (linux/filter.h, linux/bpf_common.h).
const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K

// Return values (linux/seccomp.h).
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;

// Offsets in struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** Low 32 bits of args[0] on a little-endian machine; socket()'s domain is an int. */
const OFFSET_ARG0_LOW = 16;

const AF_UNIX = 1;
const X32_SYSCALL_BIT = 0x40000000;

type Label = 'deny' | 'checkDomain';
type Insn = { code: number; k: number; jt?: Label; jf?: Label } | { label: Label };

/** The seccomp program for `arch`, as the bytes `bwrap --seccomp` reads. */
export function unixSocketFilter(arch: SeccompArch): Buffer {
  const a = ARCHES[arch];
  const program: Insn[] = [
    { code: LD_W_ABS, k: OFFSET_ARCH },
    { code: JEQ_K, k: a.auditArch, jf: 'deny' },
    { code: LD_W_ABS, k: OFFSET_NR },
    ...(a.x32 ? [{ code: JGE_K, k: X32_SYSCALL_BIT, jt: 'deny' as const }] : []),
    { code: JEQ_K, k: a.socket, jt: 'checkDomain' },
    ...a.ioUring.map((nr) => ({ code: JEQ_K, k: nr, jt: 'deny' as const })),
    { code: RET_K, k: SECCOMP_RET_ALLOW },
    { label: 'checkDomain' },
    { code: LD_W_ABS, k: OFFSET_ARG0_LOW },
    { code: JEQ_K, k: AF_UNIX, jt: 'deny' },
    { code: RET_K, k: SECCOMP_RET_ALLOW },
    { label: 'deny' },
    { code: RET_K, k: SECCOMP_RET_ERRNO | EPERM },
  ];
  return assemble(program);
}

/** Resolves labels into the relative jump offsets BPF uses (from the next instruction). */
function assemble(program: Insn[]): Buffer {
  const labels = new Map<Label, number>();
  const insns: Exclude<Insn, { label: Label }>[] = [];
  for (const insn of program) {
    if ('label' in insn) labels.set(insn.label, insns.length);
    else insns.push(insn);
  }
  const out = Buffer.alloc(insns.length * 8);
  insns.forEach((insn, pc) => {
    const offset = (label: Label | undefined): number => {
      if (label === undefined) return 0;
      const target = labels.get(label);
      if (target === undefined || target <= pc) throw new Error(`seccomp program: bad jump to ${label}`);
      const rel = target - pc - 1;
      if (rel > 255) throw new Error('seccomp program: jump too far');
      return rel;
    };
    out.writeUInt16LE(insn.code, pc * 8);
    out.writeUInt8(offset(insn.jt), pc * 8 + 2);
    out.writeUInt8(offset(insn.jf), pc * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, pc * 8 + 4);
  });
  return out;
}

/** The filter's architecture for this Node process, or null where Weft has none (then nothing is filtered). */
export function seccompArchOf(nodeArch: string = process.arch): SeccompArch | null {
  return nodeArch === 'x64' || nodeArch === 'arm64' ? nodeArch : null;
}
