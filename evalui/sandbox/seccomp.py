"""A seccomp filter that refuses every change of user id (used by the sandbox child run as root).

As root the program runs with a real user id of its own (so the kernel counts its processes against
RLIMIT_NPROC: root's are never counted) while keeping user id 0 for file access. Without this
filter it could set its real id back to 0 (a process may always copy its effective id into its
real one) and fork without bound again. System calls of another architecture (the 32-bit ABI,
x32) are refused as a whole, since their numbers differ. Standard library only: this runs in the child.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
LOAD_WORD, JUMP_EQUAL, JUMP_AT_LEAST, RETURN = 0x20, 0x15, 0x35, 0x06
ALLOW, REFUSE = 0x7FFF0000, 0x00050000 | errno.EPERM
ARCH_OFFSET, NR_OFFSET = 4, 0
X32_BIT = 0x40000000
# (audit architecture, setuid, setreuid, setresuid, setfsuid)
CALLS = {"x86_64": (0xC000003E, 105, 113, 117, 122), "aarch64": (0xC00000B7, 146, 145, 147, 151)}


def supported() -> bool:
    return os.uname().machine in CALLS


def _program() -> list[tuple[int, int, int, int]]:
    arch, *numbers = CALLS[os.uname().machine]
    checks = [(JUMP_AT_LEAST, 0, 0, X32_BIT)] + [(JUMP_EQUAL, 0, 0, nr) for nr in numbers]
    program = [(LOAD_WORD, 0, 0, ARCH_OFFSET), (JUMP_EQUAL, 1, 0, arch), (RETURN, 0, 0, REFUSE),
               (LOAD_WORD, 0, 0, NR_OFFSET)]
    refuse_at = len(program) + len(checks) + 1  # after the checks and the ALLOW that follows them
    for code, _, _, value in checks:
        program.append((code, refuse_at - len(program) - 1, 0, value))
    return program + [(RETURN, 0, 0, ALLOW), (RETURN, 0, 0, REFUSE)]


def forbid_uid_changes() -> None:
    """From now on setuid, setreuid, setresuid and setfsuid fail with EPERM, here and in every child."""
    program = _program()
    raw = b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
    filters = ctypes.create_string_buffer(raw, len(raw))
    fprog = struct.pack("=HxxxxxxQ", len(program), ctypes.addressof(filters))
    fprog_buffer = ctypes.create_string_buffer(fprog, len(fprog))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog_buffer, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
