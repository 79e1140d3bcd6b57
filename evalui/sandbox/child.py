"""Runs inside the sandbox subprocess: contain the task, set the limits, confine, run the model's program.

Started as ``python -I -u child.py SETTINGS_JSON``: -u so that what the program printed before a
kill is kept (-I ignores PYTHONUNBUFFERED). Everything is set here, in the child, rather than in a
preexec_fn, which is unsafe in a process with threads (evalui runs tasks on many). Only the
standard library and the modules beside this file are imported before the limits apply.

Three processes play a part:
- the keeper (this process) stays out of the program's reach. It puts the task in a new PID
  namespace where the kernel allows, watches the memory of all the task's processes together,
  stops the task on SIGTERM (the server's timeout and cancel), kills every process of the task at
  the end, and exits the way the program did;
- init, PID 1 of that namespace, reaps orphans and exits with the program, and the kernel then
  kills whatever is left in the namespace, ``setsid`` children included;
- the program sets the limits, drops every capability, confines itself and runs the model's code.
  RLIMIT_NPROC bounds the task's processes: the kernel counts them per real user id (per user
  namespace), so a non-root server gets a user namespace per task, and a root one (whose processes
  are never counted) gives the program a real user id of its own, keeping user id 0 for reading
  files, with a seccomp filter so that it cannot take 0 back.
"""

import json
import os
import resource
import runpy
import select
import signal
import sys
import time

POLL_S = 0.05
STOP_ASKED = []  # the server's SIGTERM (timeout, cancel): the keeper kills the task, then exits
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _join_cgroup(path: str) -> bool:
    try:
        with open(os.path.join(path, "cgroup.procs"), "w") as handle:
            handle.write(str(os.getpid()))
        return True
    except OSError:
        return False


def _new_namespaces(root: bool) -> tuple[bool, bool]:
    """(a user namespace, a PID namespace) for the task: root needs no user namespace for the second."""
    libc = _libc()
    user = False
    if not root:
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(CLONE_NEWUSER) != 0:
            return False, False
        user = True
        try:
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w") as handle:
                    handle.write(text)
        except OSError:
            pass  # the ids show as the overflow id inside; access is still by the real ones
    return user, libc.unshare(CLONE_NEWPID) == 0


def _threads_of(uid: int) -> int:
    total = 0
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/status") as handle:
                fields = dict(line.split(":", 1) for line in handle.read().splitlines() if ":" in line)
        except (OSError, ValueError):
            continue
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            total += int(fields.get("Threads", "1").strip() or 1)
    return total


def _set_limits(settings: dict, nproc: int) -> None:
    for limit, value in ((resource.RLIMIT_CPU, settings["cpu_s"]), (resource.RLIMIT_AS, settings["memory_bytes"]),
                         (resource.RLIMIT_FSIZE, settings["file_bytes"]), (resource.RLIMIT_CORE, 0),
                         (resource.RLIMIT_NPROC, nproc)):
        hard = resource.getrlimit(limit)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(limit, (value, value))


def _program(settings: dict, root: bool, drop: bool, nproc: int) -> None:
    """Become the model's program; leaves by SystemExit, like a script run with ``python program.py``."""
    import capabilities
    import landlock
    import seccomp

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _set_limits(settings, nproc)
    if root:
        os.setresuid(settings["task_uid"], 0, 0)  # counted by RLIMIT_NPROC; files are still read as root's
    if drop:
        capabilities.drop_all()  # root could raise its own limits again, and read any file
    if root and seccomp.supported():
        seccomp.forbid_uid_changes()
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
    sys.exit(0)


def _init(lifeline: int, status_pipe: int, start_program, drop: bool) -> None:
    """PID 1 of the task's namespace: runs the program, reaps orphans, reports the program's end."""
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if select.select([lifeline], [], [], 0)[0]:  # the keeper died before the line above
        os._exit(1)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)  # PID 1 ignores what it does not handle
    program = os.fork()
    if program == 0:
        os.close(lifeline)
        os.close(status_pipe)
        start_program()
    if drop:  # nothing is left for init to do that needs them
        import capabilities

        capabilities.drop_all()
    while True:
        pid, status = os.wait()
        if pid == program:
            os.write(status_pipe, str(status).encode())
            os._exit(0)


class Keeper:
    def __init__(self, settings: dict, child: int, identity: tuple, allowed: int):
        self.settings, self.child, self.identity, self.allowed = settings, child, identity, allowed
        self.status = None
        self.reason = ""

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if not pid:
                return
            if pid == self.child:
                self.status = status

    def stop(self, reason: str) -> None:
        import processes

        self.reason = self.reason or reason
        processes.kill_all(*self.identity, reap=self.reap)

    def watch(self) -> None:
        import processes

        try:
            ready = os.pidfd_open(self.child)
        except (AttributeError, OSError):
            ready = None
        limit, pause = self.settings["task_memory_bytes"], POLL_S
        while self.status is None:
            select.select([ready] if ready is not None else [], [], [], pause)
            self.reap()
            if self.status is not None:
                break
            if STOP_ASKED:
                self.stop("terminated")
                continue
            began = time.monotonic()
            pids = processes.members(*self.identity)
            # Naming the task's processes costs one /proc read per process on the machine outside a PID
            # namespace: the watch then takes at most a quarter of a CPU.
            pause = max(POLL_S, 3 * (time.monotonic() - began))
            if len(pids) > self.allowed:
                self.stop(f"process limit: more than {self.settings['processes']} processes")
            elif processes.resident_bytes(pids) > limit and processes.proportional_bytes(pids) > limit:
                self.stop(f"memory limit: the program's processes held more than {limit // 2**20} MB together")
        processes.kill_all(*self.identity, reap=self.reap)  # what the program left running


def _exit_as(status: int, killed: bool) -> None:
    sig = signal.SIGKILL if killed else (os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0)
    if sig:
        if sig != signal.SIGKILL:
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: STOP_ASKED.append(True))  # first: a timeout may come at once
    settings = json.loads(sys.argv[1])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import capabilities  # noqa: F401  (beside this file; -I leaves the script's folder off sys.path)
    import landlock  # noqa: F401
    import processes  # noqa: F401
    import seccomp  # noqa: F401

    sys.path.pop(0)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    root = os.geteuid() == 0 and settings.get("task_uid") is not None
    held = {"cgroup": bool(settings.get("cgroup")) and _join_cgroup(settings["cgroup"])}
    _libc().prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphans of the task come back here, not to the system's init
    user_ns, pid_ns = _new_namespaces(root) if settings.get("namespaces", True) else (False, False)
    processes_limit = settings["processes"]
    if root or user_ns:  # counted per task: its own uid, or its own user namespace (keeper and init in it)
        nproc = processes_limit + (0 if root else 1 + pid_ns)
    else:  # counted per user: shared with the server and the other tasks
        nproc = _threads_of(os.getuid()) + processes_limit
    held.update(pid_namespace=pid_ns, user_namespace=user_ns, own_uid=root,
                processes_per_task=(root and seccomp.supported()) or user_ns, nproc=nproc)
    lifeline, lifeline_keep = os.pipe()
    status_read, status_write = os.pipe()

    def start_program():
        _program(settings, root, root or user_ns, nproc)

    child = os.fork()
    if child == 0:
        os.close(lifeline_keep)
        os.close(status_read)
        if pid_ns:
            _init(lifeline, status_write, start_program, root or user_ns)
        os.close(lifeline)
        os.close(status_write)
        start_program()
    os.close(lifeline)
    os.close(status_write)
    if pid_ns:
        identity = ("ns", os.readlink("/proc/self/ns/pid_for_children"))
    else:
        identity = ("uid", settings["task_uid"]) if root else ("tree", os.getpid())
    keeper = Keeper(settings, child, identity, processes_limit + pid_ns)
    keeper.watch()
    status = keeper.status
    if pid_ns:
        os.set_blocking(status_read, False)
        try:
            reported = os.read(status_read, 32)
        except BlockingIOError:
            reported = b""
        status = int(reported) if reported else status
    with open(settings["status_path"], "w") as handle:
        json.dump({"stopped": keeper.reason, "held": held}, handle)
    sys.stdout.flush()
    _exit_as(status, killed=bool(keeper.reason))


if __name__ == "__main__":
    main()
