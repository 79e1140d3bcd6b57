"""Runs inside the sandbox subprocess: set the limits, confine, then run the model's program.

Started as ``python -I child.py SETTINGS_JSON``. Everything is set here, in the child, rather than
in a preexec_fn, which is unsafe in a process with threads (evalui runs tasks on many). Only the
standard library is imported before the limits apply.
"""

import json
import os
import resource
import runpy
import sys


def main() -> None:
    settings = json.loads(sys.argv[1])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import capabilities  # beside this file; -I leaves the script's folder off sys.path
    import landlock

    sys.path.pop(0)
    for limit, value in ((resource.RLIMIT_CPU, settings["cpu_s"]), (resource.RLIMIT_AS, settings["memory_bytes"]),
                         (resource.RLIMIT_FSIZE, settings["file_bytes"]), (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(limit, (value, value))
    if os.geteuid() == 0:
        capabilities.drop_all()  # root could raise its own limits again, and read any file
    if settings["confine"]:
        landlock.restrict(settings["read_only"], settings["read_write"])
    sys.argv = [settings["program"]]
    sys.path.insert(0, ".")  # the working folder, as for `python program.py`
    try:
        runpy.run_path(settings["program"], run_name="__main__")
    except SystemExit:
        raise
    except BaseException:
        # The traceback the model reads starts at its own program, not in this launcher.
        import traceback

        kind, error, frames = sys.exc_info()
        while frames is not None and frames.tb_frame.f_code.co_filename != settings["program"]:
            frames = frames.tb_next
        traceback.print_exception(kind, error, frames)
        sys.exit(1)


if __name__ == "__main__":
    main()
