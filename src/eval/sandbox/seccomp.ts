/**
 * The sandbox's seccomp filter, as the classic BPF program bwrap loads with `--seccomp FD` (just
 * before it runs the kernel, with no_new_privs set; every process the kernel starts inherits it).
 *
 * Why a filter: a read-only mount does not stop connect() on a socket file, so without one a cell
 * reached the user's tmux, D-Bus, ssh-agent and docker sockets, wherever they lived. seccomp
 * cannot see connect()'s address, so the filter decides at socket(): only the families a
 * sandbox needs are created (IPv4 and IPv6, which the network namespace confines to a loopback
 * of its own when the network is off; netlink, for interface queries). AF_UNIX sockets and the
 * rest (AF_VSOCK reaches the hypervisor, whatever the namespaces) are refused with EACCES.
 * socketpair() is another system call and keeps working: the kernel's bridge, multiprocessing's
 * pipes. Also refused: io_uring (its operations open and connect sockets past this filter),
 * the kernel keyrings (not namespaced: root's keys are the host's), 32-bit and x32 system calls
 * (socketcall() multiplexes socket() past the check), with the program written for this
 * process's architecture only.
 *
 * Written by hand (eight bytes an instruction) rather than with libseccomp: it is thirty
 * instructions, and the project stays free of native modules.
 */
import { SandboxError } from './settings.js';

// struct seccomp_data: nr (u32) at 0, arch (u32) at 4, instruction pointer (u64) at 8, args at 16.
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16; // little-endian: the low half of args[0] (socket()'s domain is an int)

// BPF opcodes: ld [k] (word, absolute), jeq #k, jge #k, ret #k.
const LD_ABS = 0x20;
const JEQ = 0x15;
const JGE = 0x35;
const RET = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;

const EACCES = 13;
const ENOSYS = 38;

export const AF_INET = 2;
export const AF_INET6 = 10;
export const AF_NETLINK = 16;
/** Socket families a sandboxed cell may create. */
const ALLOWED_FAMILIES = [AF_INET, AF_INET6, AF_NETLINK];

interface Arch {
  audit: number;
  socket: number;
  /** System calls refused as if the kernel had none (callers fall back). */
  absent: number[];
  /** The x32 ABI's bit: system call numbers with it set are refused (x86-64 only). */
  x32Bit?: number;
}

const IO_URING = [425, 426, 427]; // setup, enter, register: the same numbers on both
const ARCHES: Partial<Record<NodeJS.Architecture, Arch>> = {
  x64: { audit: 0xc000003e, socket: 41, absent: [...IO_URING, 248, 249, 250], x32Bit: 0x40000000 },
  arm64: { audit: 0xc00000b7, socket: 198, absent: [...IO_URING, 217, 218, 219] },
};

/** One instruction; a jump names its targets by label, resolved when the program is assembled. */
type Op = { code: number; k: number; jt?: string; jf?: string } | { label: string };

function assemble(ops: Op[]): Buffer {
  const code = ops.filter((op): op is Exclude<Op, { label: string }> => !('label' in op));
  const at = new Map<string, number>();
  let index = 0;
  for (const op of ops) {
    if ('label' in op) at.set(op.label, index);
    else index++;
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((op, i) => {
    const offset = (label: string | undefined) => {
      if (label === undefined) return 0;
      const target = at.get(label);
      if (target === undefined || target <= i || target - i - 1 > 255) throw new Error(`bad jump ${label}`);
      return target - i - 1;
    };
    out.writeUInt16LE(op.code, i * 8);
    out.writeUInt8(offset(op.jt), i * 8 + 2);
    out.writeUInt8(offset(op.jf), i * 8 + 3);
    out.writeUInt32LE(op.k >>> 0, i * 8 + 4);
  });
  return out;
}

/** The filter for `arch` (this process's by default); throws where there is none. */
export function seccompProgram(arch: NodeJS.Architecture = process.arch): Buffer {
  const a = ARCHES[arch];
  if (!a) {
    throw new SandboxError(
      `The sandbox's system-call filter is written for x64 and arm64, not ${arch}; run with --sandbox off (setting sandbox.mode)`,
    );
  }
  const ops: Op[] = [
    { code: LD_ABS, k: ARCH },
    { code: JEQ, k: a.audit, jf: 'kill' },
    { code: LD_ABS, k: NR },
    ...(a.x32Bit ? [{ code: JGE, k: a.x32Bit, jt: 'absent' }] : []),
    { code: JEQ, k: a.socket, jt: 'socket' },
    ...a.absent.map((nr) => ({ code: JEQ, k: nr, jt: 'absent' })),
    { code: RET, k: RET_ALLOW },
    { label: 'socket' },
    { code: LD_ABS, k: ARG0_LOW },
    ...ALLOWED_FAMILIES.map((family) => ({ code: JEQ, k: family, jt: 'allow' })),
    { code: RET, k: RET_ERRNO | EACCES },
    { label: 'allow' },
    { code: RET, k: RET_ALLOW },
    { label: 'absent' },
    { code: RET, k: RET_ERRNO | ENOSYS },
    { label: 'kill' },
    { code: RET, k: RET_KILL_PROCESS },
  ];
  return assemble(ops);
}

/** A program's instructions, each [code, jt, jf, k] (what evaluate runs). */
function decode(program: Buffer): [number, number, number, number][] {
  const out: [number, number, number, number][] = [];
  for (let i = 0; i < program.length; i += 8)
    out.push([
      program.readUInt16LE(i),
      program[i + 2] ?? 0,
      program[i + 3] ?? 0,
      program.readUInt32LE(i + 4),
    ]);
  return out;
}

/**
 * Runs `program` over one system call as the kernel would (the subset of BPF used here): the
 * unit tests check the filter's decisions without a kernel.
 */
export function evaluate(program: Buffer, call: { arch: number; nr: number; arg0?: number }): number {
  const ops = decode(program);
  let acc = 0;
  for (let pc = 0; pc < ops.length; pc++) {
    const [code, jt, jf, k] = ops[pc] as [number, number, number, number];
    if (code === LD_ABS) acc = k === ARCH ? call.arch : k === NR ? call.nr : (call.arg0 ?? 0);
    else if (code === JEQ) pc += acc === k ? jt : jf;
    else if (code === JGE) pc += acc >>> 0 >= k >>> 0 ? jt : jf;
    else if (code === RET) return k;
    else throw new Error(`opcode ${code}`);
  }
  throw new Error('fell off the program');
}

export const SECCOMP = { RET_ALLOW, RET_KILL_PROCESS, RET_ERRNO, EACCES, ENOSYS } as const;
