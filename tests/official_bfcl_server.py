"""The official ``bfcl`` command, run in processes forked from an interpreter that has already
imported what bfcl-eval's CLI imports (its model registry loads every provider SDK: about 7 s of
CPU in each ``bfcl evaluate``).

Each command runs bfcl-eval's own console-script function (``bfcl_eval.__main__:cli``) with the
command's arguments, environment and working folder, in a fresh fork. bfcl-eval's own modules are
imported again in that fork, under the command's ``BFCL_PROJECT_ROOT`` (they read it at import);
only third-party packages come preloaded.

Protocol: one JSON request per line on stdin (``args``, ``env``, ``cwd``, ``stdout``, ``stderr``:
the files the command's output goes to); one JSON line back with its ``returncode``. The server
ends when stdin closes, so it never outlives the test process that started it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback


def preload() -> None:
    os.environ["BFCL_PROJECT_ROOT"] = tempfile.mkdtemp(prefix="bfcl-warm-")
    import bfcl_eval.__main__  # noqa: F401  (the CLI and everything it imports)
    import bfcl_eval.eval_checker.eval_runner  # noqa: F401  (what `bfcl evaluate` imports when it runs)

    for name in [m for m in sys.modules if m == "bfcl_eval" or m.startswith("bfcl_eval.")]:
        del sys.modules[name]


def run_command(request: dict) -> int:
    """In the fork: become the command, run bfcl's CLI, and return its exit status."""
    os.environ.clear()
    os.environ.update(request["env"])
    tempfile.tempdir = None  # TMPDIR may differ from the server's
    os.chdir(request["cwd"])
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    sys.argv = ["bfcl", *request["args"]]
    try:
        from bfcl_eval.__main__ import cli

        cli()
        return 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # reported as the console script would: a traceback and status 1
        traceback.print_exc()
        return 1


def main() -> None:
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything printed while preloading is not a reply
    preload()
    replies.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                status = run_command(request)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
        _, wait_status = os.waitpid(pid, 0)
        replies.write(json.dumps({"returncode": os.waitstatus_to_exitcode(wait_status)}) + "\n")


if __name__ == "__main__":
    main()
