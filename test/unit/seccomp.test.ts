import { describe, expect, it } from 'vitest';
import {
  AF_INET,
  AF_INET6,
  AF_NETLINK,
  evaluate,
  SECCOMP,
  seccompProgram,
} from '../../src/eval/sandbox/seccomp.js';

const X64 = 0xc000003e;
const ARM64 = 0xc00000b7;
const I386 = 0x40000003;
const errno = (n: number) => SECCOMP.RET_ERRNO | n;

describe('the seccomp filter', () => {
  const x64 = seccompProgram('x64');
  it('lets IP and netlink sockets be made, refuses AF_UNIX, AF_VSOCK and the rest with EACCES', () => {
    for (const family of [AF_INET, AF_INET6, AF_NETLINK])
      expect(evaluate(x64, { arch: X64, nr: 41, arg0: family })).toBe(SECCOMP.RET_ALLOW);
    for (const family of [1, 17, 40, 38]) // AF_UNIX, AF_PACKET, AF_VSOCK, AF_ALG
      expect(evaluate(x64, { arch: X64, nr: 41, arg0: family })).toBe(errno(SECCOMP.EACCES));
  });
  it('keeps socketpair, connect and everything else', () => {
    for (const nr of [53, 42, 0, 1, 57, 59])
      expect(evaluate(x64, { arch: X64, nr, arg0: 1 })).toBe(SECCOMP.RET_ALLOW);
  });
  it('refuses io_uring, the keyrings and x32 calls as absent; kills a foreign architecture', () => {
    for (const nr of [425, 426, 427, 248, 249, 250, 0x40000000 + 41])
      expect(evaluate(x64, { arch: X64, nr })).toBe(errno(SECCOMP.ENOSYS));
    expect(evaluate(x64, { arch: I386, nr: 102 })).toBe(SECCOMP.RET_KILL_PROCESS); // socketcall
  });
  it('has arm64 numbers of its own', () => {
    const arm = seccompProgram('arm64');
    expect(evaluate(arm, { arch: ARM64, nr: 198, arg0: 1 })).toBe(errno(SECCOMP.EACCES));
    expect(evaluate(arm, { arch: ARM64, nr: 199, arg0: 1 })).toBe(SECCOMP.RET_ALLOW);
    expect(evaluate(arm, { arch: X64, nr: 41, arg0: 1 })).toBe(SECCOMP.RET_KILL_PROCESS);
  });
  it('refuses to sandbox an architecture it has no numbers for', () => {
    expect(() => seccompProgram('ia32')).toThrow(/x64 and arm64/);
  });
});
