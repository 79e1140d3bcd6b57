"""BFCL v4's memory backends (``memory_kv``, ``memory_vector``, ``memory_rec_sum``): bfcl-eval's own
classes, offline and without torch, with their snapshots kept per run.

The classes are bfcl-eval's, unchanged: their function docs, their limits (7 core entries of 300
characters, 50 archival of 2,000; rec_sum one summary of 10,000), their error texts and their
snapshot files. What each needs:

- ``MemoryAPI_kv`` (memory_kv.py) imports ``rank_bm25`` (BM25Plus key search): installed as it is.
- ``MemoryAPI_rec_sum`` (memory_rec_sum.py) needs nothing beyond bfcl-eval.
- ``MemoryAPI_vector`` (memory_vector.py) imports ``SentenceTransformer`` from sentence_transformers
  and ``faiss`` at module level, and builds ``ENCODER = SentenceTransformer("all-MiniLM-L6-v2",
  device="cpu")`` there. faiss-cpu comes from PyPI (it has no torch in it). For the encoder,
  the module is imported once with a stand-in ``sentence_transformers`` module in
  ``sys.modules``, and the entry is put back as it was right after the import, so nothing else
  in the process ever sees the stand-in. The stand-in offers the three calls bfcl's module makes,
  the constructor, ``encode(texts, normalize_embeddings=True)`` and
  ``get_sentence_embedding_dimension()``, over evalui's torch-free encoder (embedding.py), whose
  embeddings equal sentence-transformers' within 1e-4 cosine. The stand-in is used even where
  sentence-transformers is installed, so a run's retrievals do not depend on what else is installed.

Snapshots. A memory scenario first plays its prereq conversations in order; at the end of each,
bfcl writes the backend's memory to ``<model_result_dir>/agentic/memory/<backend>/memory_snapshot/``
(``prereq_checkpoints/<id>.json`` and ``<scenario>_final.json``), and every question of that
scenario and backend loads ``<scenario>_final.json``. ``model_result_dir`` comes from the entry's
``initial_config``; bfcl sets it to its one result folder per model, shared by every run of that
model. Here it is ``snapshot_root``, which the player gives per run, and per worker where several
play prereq chains (``run_snapshot_root(run_dir, worker)``), so no two runs or workers ever read or
write each other's memory.

For the player (see ``open_memory_backend``):

    root = run_snapshot_root(run_dir[, worker])     # once per run (and worker)
    for prereq in prereqs_of_scenario (in depends_on order):
        backend = open_memory_backend(prereq, root)    # a fresh instance, memory loaded
        ... play the conversation, running calls on backend ...
        finish_memory_entry(prereq["id"], backend)     # writes the snapshot, as bfcl does
    backend = open_memory_backend(question, root)      # loads <scenario>_final.json
    system prompt: bfcl's add_memory_instruction_system_prompt(question, category, scenario, backend)
"""

from __future__ import annotations

import copy
import importlib
import sys
import threading
import types
from pathlib import Path

import numpy as np

from evalui.benchmarks.bfcl.agentic.embedding import MODEL_NAME, MiniLMEncoder, shared_encoder
from evalui.benchmarks.bfcl.scoring.official import set_project_root

MEMORY_CATEGORIES = ("memory_kv", "memory_vector", "memory_rec_sum")
BACKEND_CLASS_NAMES = {"memory_kv": "MemoryAPI_kv", "memory_vector": "MemoryAPI_vector",
                       "memory_rec_sum": "MemoryAPI_rec_sum"}
SNAPSHOT_DIR_NAME = "memory_snapshots"
_import_lock = threading.Lock()


class MiniLMSentenceTransformer:
    """The part of ``sentence_transformers.SentenceTransformer`` that bfcl's memory_vector calls.

    Keyword arguments beyond those bfcl passes raise TypeError rather than being ignored: a later
    bfcl asking for something else must fail loudly, not get silently different vectors.
    """

    def __init__(self, model_name_or_path: str, device: str | None = None,
                 encoder: MiniLMEncoder | None = None):
        if str(model_name_or_path).rstrip("/").rsplit("/", 1)[-1] != MODEL_NAME:
            raise ValueError(f"evalui's encoder runs {MODEL_NAME} only, not {model_name_or_path!r}")
        if device not in (None, "cpu"):
            raise ValueError(f"evalui's encoder runs on the CPU, not on {device!r}")
        self._encoder = encoder or shared_encoder()

    def encode(self, sentences: str | list[str], batch_size: int = 32, show_progress_bar: bool | None = None,
               convert_to_numpy: bool = True, normalize_embeddings: bool = False) -> np.ndarray:
        if not convert_to_numpy:
            raise TypeError("evalui's encoder returns numpy arrays only")
        single = isinstance(sentences, str)
        vectors = self._encoder.encode([sentences] if single else list(sentences),
                                       normalize=normalize_embeddings, batch_size=batch_size)
        return vectors[0] if single else vectors

    def get_sentence_embedding_dimension(self) -> int:
        return self._encoder.dimension

    get_embedding_dimension = get_sentence_embedding_dimension  # the name sentence-transformers 5+ uses


def _stand_in_module() -> types.ModuleType:
    module = types.ModuleType("sentence_transformers", "evalui's stand-in: all-MiniLM-L6-v2 without torch")
    module.SentenceTransformer = MiniLMSentenceTransformer
    return module


def backend_class_name(category_or_id: str) -> str:
    """``MemoryAPI_kv`` for ``memory_kv``, or for an entry id such as ``memory_kv_prereq_0-customer-0``."""
    for category in sorted(MEMORY_CATEGORIES, key=len, reverse=True):
        if category_or_id == category or category_or_id.startswith(category + "_"):
            return BACKEND_CLASS_NAMES[category]
    raise ValueError(f"{category_or_id!r} is not a memory category (one of {', '.join(MEMORY_CATEGORIES)})")


def _import_backend_module(module_name: str, class_name: str) -> types.ModuleType:
    if module_name in sys.modules or class_name != "MemoryAPI_vector":
        return importlib.import_module(module_name)
    missing = object()
    with _import_lock:
        if module_name in sys.modules:
            return sys.modules[module_name]
        shared_encoder()  # load the weights first: a missing package is reported as EmbeddingUnavailable
        previous = sys.modules.get("sentence_transformers", missing)
        sys.modules["sentence_transformers"] = _stand_in_module()
        try:
            return importlib.import_module(module_name)
        finally:
            if previous is missing:
                sys.modules.pop("sentence_transformers", None)
            else:
                sys.modules["sentence_transformers"] = previous


def load_memory_backend(category: str) -> type:
    """bfcl-eval's backend class for a memory category (or a memory entry id), ready to instantiate.

    Raises ValueError for a category that is not memory, EmbeddingUnavailable when memory_vector's
    weights are missing, ImportError when rank_bm25 or faiss-cpu is.
    """
    class_name = backend_class_name(category)
    set_project_root()  # bfcl_eval makes folders under BFCL_PROJECT_ROOT when first imported
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    module = _import_backend_module(CLASS_FILE_PATH_MAPPING[class_name], class_name)
    return getattr(module, class_name)


def run_snapshot_root(run_dir: str | Path, worker: str = "") -> Path:
    """Where one run keeps its memory snapshots (bfcl's ``model_result_dir`` for memory entries).

    Within it bfcl keeps one file per backend and scenario. Workers that each play a scenario's
    prereq chain (separate processes or machines of one run) give their own ``worker`` name, so
    two chains of the same scenario never write the same file."""
    root = Path(run_dir) / SNAPSHOT_DIR_NAME
    if worker:
        if not worker.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"a worker name is letters, digits, '-' and '_', not {worker!r}")
        root = root / worker
    return root


def memory_initial_config(entry: dict, snapshot_root: str | Path) -> dict:
    """The entry's ``initial_config`` as bfcl-eval builds it for memory entries
    (``populate_initial_settings_for_memory_test_cases``), with snapshots under ``snapshot_root``."""
    set_project_root()
    from bfcl_eval.utils import populate_initial_settings_for_memory_test_cases

    filled = populate_initial_settings_for_memory_test_cases(
        [{"id": entry["id"], "scenario": entry["scenario"],
          "involved_classes": entry.get("involved_classes") or [backend_class_name(entry["id"])]}],
        Path(snapshot_root))
    return filled[0]["initial_config"]


def open_memory_backend(entry: dict, snapshot_root: str | Path):
    """A fresh backend for one memory entry (prereq or question), its memory loaded as bfcl loads it:
    empty for a scenario's first prereq, else from the scenario's latest snapshot under
    ``snapshot_root``. bfcl prints a warning and starts empty when that snapshot is missing."""
    class_name = backend_class_name(entry["id"])
    if list(entry.get("involved_classes") or [class_name]) != [class_name]:
        raise ValueError(f"{entry['id']}: a memory entry involves {class_name} alone, "
                         f"not {entry.get('involved_classes')}")
    instance = load_memory_backend(entry["id"])()
    config = memory_initial_config(entry, snapshot_root)[class_name]
    instance._load_scenario(copy.deepcopy(config))
    return instance


def finish_memory_entry(entry_id: str, backend) -> Path | None:
    """After a conversation: a prereq writes its snapshot (bfcl's ``_flush_memory_to_local_file`` at
    the end of ``inference_multi_turn_*``); a question writes nothing. Returns the scenario's latest
    snapshot file when one was written."""
    set_project_root()
    from bfcl_eval.utils import is_memory_prereq

    if not is_memory_prereq(entry_id):
        return None
    backend._flush_memory_to_local_file()
    return Path(backend.latest_snapshot_file)
