"""Drop every Linux capability of this process for good (used by the sandbox child running as root).

Root may raise its own resource limits again (CAP_SYS_RESOURCE) and regains its capabilities on
every exec. Emptying the bounding set first means no program started later gets any back; then
the process's own sets are emptied. Standard library only: this runs in the child.
"""

from __future__ import annotations

import ctypes
import struct

PR_CAPBSET_DROP = 24
LINUX_CAPABILITY_VERSION_3 = 0x20080522
LAST_CAPABILITY = 63


def drop_all() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in range(LAST_CAPABILITY + 1):
        libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)  # past the kernel's last one this fails: fine
    header = ctypes.create_string_buffer(struct.pack("=Ii", LINUX_CAPABILITY_VERSION_3, 0), 8)
    empty = ctypes.create_string_buffer(bytes(24), 24)  # two {effective, permitted, inheritable} words
    if libc.capset(header, empty) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
