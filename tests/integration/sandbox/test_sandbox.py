"""The local sandbox runs model-written code in a confined subprocess: real programs, real limits."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from waiting import finishes, wait_for

from evalui.sandbox.base import Limits
from evalui.sandbox.local import LocalSandbox, landlock_abi

SENTINEL = "sk-sandbox-sentinel-91c4e2"


@pytest.fixture()
def session(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    (data / "evalui.sqlite").write_text("the store")
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    monkeypatch.setenv("HF_TOKEN", SENTINEL + "-hf")
    monkeypatch.setenv("EVALUI_DATA_DIR", str(data))
    attachment = tmp_path / "numbers.csv"
    attachment.write_text("n\n3\n4\n")
    opened = LocalSandbox(forbidden=data).open({"numbers.csv": attachment})
    yield opened
    opened.close()
    assert not opened.folder.exists()  # a closed session leaves nothing behind


def test_code_runs_in_a_fresh_folder_holding_the_attachment(session):
    done = session.run("import os, csv\nprint(os.listdir('.'))\nprint(sum(int(r['n']) for r in csv.DictReader(open('numbers.csv'))))",
                       Limits(wall_s=20))
    assert done.ok and done.stdout.splitlines() == ["['numbers.csv']", "7"]
    assert Path(os.getcwd()) != session.work
    # Files a program writes stay for the next program of the same task.
    session.run("open('note.txt', 'w').write('kept')", Limits(wall_s=20))
    assert session.run("print(open('note.txt').read())", Limits(wall_s=20)).stdout.strip() == "kept"


def test_environment_is_scrubbed(session):
    done = session.run("import os\nfor k, v in os.environ.items(): print(k, v)", Limits(wall_s=20))
    assert done.ok
    assert SENTINEL not in done.stdout and "HF_TOKEN" not in done.stdout and "EVALUI_DATA_DIR" not in done.stdout
    assert "OPENAI_API_KEY" not in done.stdout


def test_runaway_loop_is_killed_at_the_timeout(session):
    done = finishes(lambda: session.run("while True:\n    pass", Limits(wall_s=1.5)), "a runaway loop")
    # "stopped after 1.5 s" is written only once the wall clock has reached the limit: not before.
    assert done.timed_out and done.exit_code is None and done.stopped == "timeout: stopped after 1.5 s"
    assert done.duration_s >= 1.5
    # The session still works after a kill.
    assert session.run("print(6 * 7)", Limits(wall_s=20)).stdout.strip() == "42"


def test_output_printed_before_a_timeout_is_kept(session):
    program = "import time\nprint('halfway', flush=False)\nopen('printed', 'w').close()\ntime.sleep(3600)"
    # The clock starts before the interpreter does: on a loaded machine the program may not reach its
    # print within 1.5 s, so the limit grows until the program shows (by its file) that it printed.
    for wall_s in (1.5, 6, 24, 96):
        done = finishes(lambda: session.run(program, Limits(wall_s=wall_s)), "a sleeping program")
        if (session.work / "printed").exists():
            break
    assert done.timed_out and done.stdout == "halfway\n"


def test_sleeping_child_processes_are_killed_with_the_program(session):
    done = session.run("import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                       "import time\ntime.sleep(60)", Limits(wall_s=1))
    assert done.timed_out


def test_memory_hog_is_stopped(session):
    done = session.run("blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))",
                       Limits(wall_s=20, memory_bytes=512 * 1024 * 1024))
    assert not done.ok and "memory" in done.stopped
    assert "MemoryError" in done.stderr and "child.py" not in done.stderr  # the traceback starts at the program


def test_output_is_truncated_to_the_stated_size(session):
    done = session.run("print('x' * 50000)", Limits(wall_s=20, output_chars=1000))
    assert done.stdout.startswith("x" * 1000) and "truncated" in done.stdout and len(done.stdout) < 1200


def test_store_and_data_folder_are_not_reachable(session, tmp_path):
    relative = session.run(
        "import os\nfound = []\nfor up in range(8):\n    base = os.path.join(*(['..'] * up)) if up else '.'\n"
        "    for name in ('evalui.sqlite', os.path.join('data', 'evalui.sqlite')):\n"
        "        if os.path.exists(os.path.join(base, name)): found.append(os.path.join(base, name))\n"
        "print(found)", Limits(wall_s=20))
    assert relative.stdout.strip() == "[]"
    assert tmp_path not in session.folder.parents
    if landlock_abi():  # and where the kernel allows, not by absolute path either
        absolute = session.run(f"print(open({str(tmp_path / 'data' / 'evalui.sqlite')!r}).read())", Limits(wall_s=20))
        assert not absolute.ok and "Permission denied" in absolute.stderr


@pytest.mark.skipif(not landlock_abi(), reason="the kernel has no Landlock")
def test_no_tcp_and_no_signals_outside(session):
    done = session.run("import socket, os\ns = socket.socket()\ntry:\n    s.connect(('127.0.0.1', 9))\n"
                       "except OSError as e:\n    print(type(e).__name__, e.errno)\n"
                       f"try:\n    os.kill({os.getpid()}, 0)\nexcept OSError as e:\n    print('signal', e.errno)",
                       Limits(wall_s=20))
    lines = done.stdout.splitlines()
    # EPERM from Landlock's signal scope, or ESRCH: in the task's PID namespace the server has no number.
    assert lines[0] == "PermissionError 13" and lines[1] in ("signal 1", "signal 3")


def test_cancel_stops_a_program(tmp_path):
    cancel = threading.Event()
    opened = LocalSandbox(cancel=cancel).open({})
    # The cancel comes once the program runs; without it, the program would sleep until its 600 s limit.
    started = opened.work / "started"
    threading.Thread(target=lambda: (wait_for(started.exists, "the program never started"), cancel.set()),
                     daemon=True).start()
    try:
        done = finishes(lambda: opened.run("import time\nopen('started', 'w').close()\ntime.sleep(3600)",
                                           Limits(wall_s=600)), "a cancelled program")
    finally:
        cancel.set()
        opened.close()
    assert done.stopped.startswith("cancelled") and not done.timed_out


def test_data_folder_never_holds_sessions(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    sandbox = LocalSandbox(forbidden=tmp_path)
    assert tmp_path not in sandbox.root.parents and sandbox.root != tmp_path
