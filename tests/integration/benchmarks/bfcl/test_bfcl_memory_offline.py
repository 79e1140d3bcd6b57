"""memory_vector in a fresh process that cannot import torch, sentence-transformers or transformers,
and cannot open a network connection: bfcl-eval's backend still loads, stores and retrieves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

# Runs in the child. The guards are the test's, not evalui's: any import of the blocked packages,
# or any outgoing connection, fails the child loudly.
CHILD = textwrap.dedent("""
    import importlib.abc, json, socket, sys, tempfile

    BLOCKED = ("torch", "sentence_transformers", "transformers")

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} is blocked in this test")
            return None

    sys.meta_path.insert(0, Block())

    def refuse(*args, **kwargs):
        raise OSError("the network is blocked in this test")

    socket.socket.connect = refuse
    socket.create_connection = refuse

    from evalui.benchmarks.bfcl.agentic.memory import (
        finish_memory_entry, open_memory_backend, run_snapshot_root)

    root = run_snapshot_root(tempfile.mkdtemp())
    prereq = open_memory_backend({"id": "memory_vector_prereq_0-student-0", "scenario": "student"}, root)
    for text in ("My calculus exam is on March 3.", "I play the cello in the school orchestra.",
                 "My roommate is called Priya."):
        prereq.archival_memory_add(text)
    finish_memory_entry("memory_vector_prereq_0-student-0", prereq)
    question = open_memory_backend({"id": "memory_vector_7-student-7", "scenario": "student"}, root)
    hits = question.archival_memory_retrieve("Which instrument do I play?", top_k=1)["result"]
    print(json.dumps({"hit": hits[0]["text"], "loaded": sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)}))
""")


def test_memory_vector_runs_without_torch_or_network(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "BFCL_PROJECT_ROOT": str(tmp_path / "bfcl-root")}
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=600,
                          env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"hit": "I play the cello in the school orchestra.", "loaded": []}
