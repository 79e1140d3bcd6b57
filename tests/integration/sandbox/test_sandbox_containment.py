"""A GAIA python-tool program is bounded as a whole: its processes in number and in memory together,
and every one of them ends with the task, ``setsid`` ones and daemons too.

Each case runs twice: with the namespaces the kernel offers here, and without them (``namespaces=False``,
as on a machine that refuses them), where the task's own user id (root) or the child's subreaper
(otherwise) has to hold instead. Processes are watched from outside, in /proc.
"""
from __future__ import annotations

import os
import threading
import time
import uuid
from pathlib import Path

import pytest

from evalui.benchmarks.gaia.data import GaiaQuestion
from evalui.benchmarks.gaia.tools.base import ToolContext
from evalui.benchmarks.gaia.tools.python_tool import limits_note, python_tool
from evalui.sandbox.base import Limits
from evalui.sandbox.local import LocalSandbox

MB = 1024 * 1024


class Task:
    """One GAIA task's python tool over a local sandbox, as the agent loop builds it."""

    def __init__(self, namespaces: bool, limits: Limits):
        self.limits = limits
        self.sandbox = LocalSandbox(namespaces=namespaces)
        self.context = ToolContext(GaiaQuestion("t1", "q", None, "1"), limits,
                                   open_session=lambda: self.sandbox.open({}))
        self.tool = python_tool(limits_note(limits))

    def run(self, code: str):
        return self.tool.run({"code": code}, self.context)

    @property
    def session(self):
        return self.context.sandbox()


@pytest.fixture(params=[True, False], ids=["namespaces", "no-namespaces"])
def namespaces(request):
    return request.param


@pytest.fixture()
def task(namespaces):
    made = []

    def make(**limits):
        made.append(Task(namespaces, Limits(**limits)))
        return made[-1]

    yield make
    for one in made:
        one.context.close()


def processes_naming(text: str) -> list[int]:
    """Living processes whose command line holds ``text`` (the session folder is in the child's)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().decode(errors="replace")
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if text in cmdline and state not in "ZX":
            found.append(int(name))
    return found


def test_forking_stops_at_the_process_limit(task):
    bounded = task(wall_s=60, processes=12)
    result = bounded.run("import os, time\nborn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n"
                         "            time.sleep(120)\n            os._exit(0)\n        born += 1\n"
                         "except OSError as exc:\n    print(born, exc.errno)\n")
    born, errno = result.content.split("stdout:\n", 1)[1].split()[:2]
    assert errno == "11" and int(born) <= 11  # EAGAIN, with the program itself 12 at most
    if bounded.session.held.get("processes_per_task"):
        assert int(born) == 11  # the count is the task's own, not shared with the server's threads
    assert processes_naming(str(bounded.session.folder)) == []  # the sleeping children ended with the task


def test_a_fork_bomb_is_bounded_and_the_task_still_ends(task):
    bomb = task(wall_s=4, processes=16)
    session_folder = str(bomb.session.folder)
    seen, running = [0], threading.Event()
    running.set()

    def watch():
        while running.is_set():
            seen[0] = max(seen[0], len(processes_naming(session_folder)))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result = bomb.run("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n")
    finally:
        running.clear()
        watcher.join()
    assert result.error == "timeout" and "stopped (timeout" in result.content
    # The child (and init, with a PID namespace) outside the program, the program and its forks within the limit.
    assert 2 <= seen[0] <= 16 + 2
    assert processes_naming(session_folder) == []
    assert bomb.run("print(6 * 7)").content.endswith("42\n")  # the session goes on


def test_memory_of_several_children_together_is_bounded(task):
    hog = task(wall_s=60, memory_bytes=1024 * MB, task_memory_bytes=512 * MB)
    result = hog.run("import os, time\nfor _ in range(3):\n    if os.fork() == 0:\n"
                     "        block = b'x' * (300 * 1024 * 1024)\n        time.sleep(120)\n        os._exit(0)\n"
                     "time.sleep(120)\n")
    assert result.error == "stopped" and "memory limit" in result.content and "512 MB" in result.content
    assert processes_naming(str(hog.session.folder)) == []


@pytest.mark.parametrize("how", ["exits", "times out"])
def test_setsid_children_and_daemons_die_with_the_task(task, how):
    marker = f"evalui-test-daemon-{uuid.uuid4().hex[:10]}"
    runner = task(wall_s=8 if how == "times out" else 60)
    # A setsid'd child (Popen start_new_session) and a double-forked daemon, both beating into files.
    code = ("import os, subprocess, sys, time\n"
            f"beat = 'import time\\nwhile True:\\n    open(BEAT, \"a\").write(\"x\")\\n    time.sleep(0.05)  # {marker}'\n"
            "subprocess.Popen([sys.executable, '-c', beat.replace('BEAT', repr('setsid.beat'))], start_new_session=True)\n"
            "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
            "        os.execv(sys.executable, [sys.executable, '-c', beat.replace('BEAT', repr('daemon.beat'))])\n"
            "    os._exit(0)\n"
            "while not (os.path.exists('setsid.beat') and os.path.exists('daemon.beat')):\n    time.sleep(0.05)\n"
            "print('started')\n"
            + ("time.sleep(120)\n" if how == "times out" else ""))
    result = runner.run(code)
    assert "started" in result.content
    assert (result.error == "timeout") == (how == "times out")
    assert processes_naming(marker) == []
    work = runner.session.work
    sizes = [(work / name).stat().st_size for name in ("setsid.beat", "daemon.beat")]
    time.sleep(1.0)
    assert [(work / name).stat().st_size for name in ("setsid.beat", "daemon.beat")] == sizes


def test_memory_shared_after_a_fork_counts_once(task):
    fair = task(wall_s=60, memory_bytes=1024 * MB, task_memory_bytes=700 * MB)
    result = fair.run("import os, time\nblock = b'x' * (250 * 1024 * 1024)\nchildren = []\nfor _ in range(3):\n"
                      "    pid = os.fork()\n    if pid == 0:\n        time.sleep(1.5)\n        os._exit(0)\n"
                      "    children.append(pid)\nfor pid in children:\n    os.waitpid(pid, 0)\nprint('done')\n")
    assert result.error is None and result.content.endswith("done\n")  # 4 x 250 MB resident, 250 MB in truth
