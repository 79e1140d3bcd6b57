"""``python``: run the model's code in the sandbox and return what it printed."""

from __future__ import annotations

from evalui.benchmarks.gaia.tools.base import Tool, ToolContext, ToolResult


def _run(arguments: dict, context: ToolContext) -> ToolResult:
    code = arguments.get("code")
    if not isinstance(code, str) or not code.strip():
        return ToolResult("the python tool needs a non-empty string argument `code`", error="bad_arguments")
    done = context.sandbox().run(code, context.limits)
    parts = []
    if done.stopped:
        parts.append(f"The program was stopped ({done.stopped}). Output before that is below.")
    else:
        parts.append(f"exit code {done.exit_code}")
    parts.append("stdout:\n" + (done.stdout or "(nothing)"))
    if done.stderr:
        parts.append("stderr:\n" + done.stderr)
    error = None
    if done.timed_out:
        error = "timeout"
    elif done.stopped:
        error = "stopped"
    elif done.exit_code:
        error = "exit_code"
    return ToolResult("\n".join(parts), error=error)


def python_tool(limits_note: str) -> Tool:
    return Tool(
        name="python",
        description=("Run a Python 3.11 program and get its stdout and stderr. Each call is a new process: print "
                     "what you need, since variables do not carry over; files you write stay in the working "
                     "folder for later calls. The task's attached file, if any, is in the working folder under "
                     f"its own name. pandas and openpyxl are installed. No network. {limits_note}"),
        parameters={"type": "object", "properties": {"code": {"type": "string", "description": "the program"}},
                    "required": ["code"]},
        run=_run,
    )


def limits_note(context_limits) -> str:
    memory_mb = context_limits.task_memory // (1024 * 1024)
    return (f"Limits: {context_limits.wall_s:g} s, {memory_mb} MB of memory and {context_limits.processes} "
            f"processes (threads count too) for the program and its children together; output beyond "
            f"{context_limits.output_chars} characters is cut.")

