"""The sandbox run by a server that is not root (a Space, CI): the same bounds must hold.

The server here is a driver process run as ``nobody`` with the system's python (the project's
environment may sit in a folder only root can read), using the sandbox API as the GAIA agent
does. With namespaces the child gives each task a user namespace, so RLIMIT_NPROC counts that
task alone, and a PID namespace; without them (``namespaces=False``, as where the kernel refuses
unprivileged user namespaces) the count is the user's, and the child's subreaper ends the task.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from evalui.sandbox.local import landlock_abi

PROJECT = Path(__file__).resolve().parents[3]
SYSTEM_PYTHON = next((p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.access(p, os.X_OK)), None)
NOBODY = 65534

DRIVER = """
import json, os, sys, time
from pathlib import Path
sys.path.insert(0, PROJECT)
from evalui.sandbox.base import Limits
from evalui.sandbox.local import LocalSandbox

MB = 1024 * 1024
BOMB = ("import os, time\\nborn = 0\\ntry:\\n    while True:\\n        if os.fork() == 0:\\n"
        "            time.sleep(120)\\n            os._exit(0)\\n        born += 1\\n"
        "except OSError as exc:\\n    print(born, exc.errno)\\n")
HOG = ("import os, time\\nfor _ in range(3):\\n    if os.fork() == 0:\\n        block = b'x' * (300 * MB)\\n"
       "        time.sleep(120)\\n        os._exit(0)\\ntime.sleep(120)\\n").replace("MB", str(MB))
DAEMON = ("import os, subprocess, sys, time\\n"
          "beat = 'import time\\\\nwhile True:\\\\n    open(\\"beat\\", \\"a\\").write(\\"x\\")\\\\n    time.sleep(0.05)  # MARKER'\\n"
          "subprocess.Popen([sys.executable, '-c', beat], start_new_session=True)\\n"
          "while not os.path.exists('beat'):\\n    time.sleep(0.05)\\nprint('started')\\n")
READ = "try:\\n    print(open(PLANTED).read())\\nexcept OSError as exc:\\n    print(type(exc).__name__)\\n"

def living(text):
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            line = open(f"/proc/{name}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            continue
        found += [name] if text in line and int(name) != os.getpid() else []
    return found

report = {}
for namespaces in (True, False):
    session = LocalSandbox(forbidden=Path(DATA), namespaces=namespaces).open({})
    bomb = session.run(BOMB, Limits(wall_s=60, processes=12))
    hog = session.run(HOG, Limits(wall_s=60, task_memory_bytes=512 * MB))
    daemon = session.run(DAEMON.replace("MARKER", MARKER), Limits(wall_s=60))
    left = living(MARKER)
    size = os.path.getsize(os.path.join(session.work, "beat"))
    time.sleep(1.0)
    read = session.run(READ.replace("PLANTED", repr(PLANTED)), Limits(wall_s=60))
    report[str(namespaces)] = {"uid": os.getuid(), "held": session.held, "bomb": bomb.stdout, "hog": hog.stopped,
                               "daemon": daemon.stdout, "left": left,
                               "beat": [size, os.path.getsize(os.path.join(session.work, "beat"))],
                               "read": read.stdout}
    session.close()
print(json.dumps(report))
"""


@pytest.fixture()
def as_nobody():
    if os.geteuid() != 0 or SYSTEM_PYTHON is None:
        pytest.skip("needs root (to become nobody) and a system python")
    folder = Path(tempfile.mkdtemp(prefix="evalui-test-unprivileged-"))
    project = folder / "app"  # the current folder, with the data folder under it, as in the Space's layout
    (project / "evalui_data").mkdir(parents=True)
    planted = project / "evalui_data" / "evalui.sqlite-wal"
    planted.write_text("sandbox-unprivileged-sentinel")
    for path in (folder, project, project / "evalui_data", planted):
        os.chown(path, NOBODY, NOBODY)
    try:
        yield project, planted
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_bounds_hold_for_a_server_that_is_not_root(as_nobody):
    project, planted = as_nobody
    marker = f"evalui-test-unprivileged-{uuid.uuid4().hex[:10]}"
    settings = {"PROJECT": str(PROJECT), "DATA": str(project / "evalui_data"), "PLANTED": str(planted),
                "MARKER": marker}
    code = "".join(f"{name} = {value!r}\n" for name, value in settings.items()) + DRIVER
    done = subprocess.run([SYSTEM_PYTHON, "-c", code], cwd=project, user=NOBODY, group=NOBODY, extra_groups=[],
                          env={"PATH": "/usr/bin:/bin", "HOME": str(project)}, capture_output=True, text=True,
                          timeout=600)
    if done.returncode and "Permission denied" in done.stderr and "evalui" in done.stderr:
        pytest.skip("the checkout is not readable by nobody")
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    for namespaces, seen in report.items():
        assert seen["uid"] == NOBODY
        born, errno = seen["bomb"].split()
        assert errno == "11"
        if seen["held"]["user_namespace"]:  # counted for the task alone
            assert int(born) == 11 and seen["held"]["processes_per_task"] and seen["held"]["pid_namespace"]
        else:  # counted for the user: its processes when the task began, plus 12
            assert int(born) < seen["held"]["nproc"] and not seen["held"]["processes_per_task"]
        assert "memory limit" in seen["hog"]
        assert seen["daemon"] == "started\n" and seen["left"] == [] and seen["beat"][0] == seen["beat"][1]
        if landlock_abi():
            assert seen["read"].strip() == "PermissionError", (namespaces, seen["read"])
    assert report["False"]["held"]["user_namespace"] is False
