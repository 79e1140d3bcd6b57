"""Where a writable cgroup v2 offers pids and memory (EVALUI_SANDBOX_CGROUP, or the root cgroup of a
privileged container), the kernel bounds each task's processes and memory and ends them all.

On machines without one (cgroup v1, a read-only /sys/fs/cgroup) these tests are skipped and the
child's own means hold (tests/test_sandbox_containment.py).
"""

from __future__ import annotations

import pytest

from evalui.sandbox import cgroup
from evalui.sandbox.base import Limits
from evalui.sandbox.local import LocalSandbox

pytestmark = pytest.mark.skipif(cgroup.base() is None, reason="no writable cgroup v2 with pids and memory here")
MB = 1024 * 1024


@pytest.fixture()
def session():
    opened = LocalSandbox().open({})
    yield opened
    opened.close()


def test_each_task_gets_a_cgroup_that_is_removed_after(session):
    before = {p.name for p in cgroup.base().iterdir() if p.is_dir()}
    done = session.run("print(6 * 7)", Limits(wall_s=30))
    assert done.stdout == "42\n" and session.held["cgroup"] and session.held["cgroup_limits"]  # joined, with limits
    assert {p.name for p in cgroup.base().iterdir() if p.is_dir()} == before


def test_the_kernel_bounds_processes_and_memory(session):
    bomb = session.run("import os, time\nborn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n"
                       "            time.sleep(120)\n            os._exit(0)\n        born += 1\n"
                       "except OSError as exc:\n    print(born, exc.errno)\n", Limits(wall_s=60, processes=12))
    born, errno = bomb.stdout.split()
    assert errno == "11" and int(born) <= 11
    hog = session.run("import os, time\nfor _ in range(3):\n    if os.fork() == 0:\n"
                      "        block = b'x' * (300 * 1024 * 1024)\n        time.sleep(120)\n        os._exit(0)\n"
                      "time.sleep(120)\n", Limits(wall_s=60, task_memory_bytes=512 * MB))
    assert "memory limit" in hog.stopped
