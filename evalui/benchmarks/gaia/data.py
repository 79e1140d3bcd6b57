"""GAIA questions from four sources: the gated HF dataset, a local folder in the same layout, a
JSON array file (as in the GAIA testing recipe), and the small sample bundled as package data
(evalui/data/gaia_sample)."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

import evalui
from evalui.errors import InputError
from evalui.hub import hub_unreachable
from evalui.jsonl import check_input_file, read_json_array

HF_REPO = "gaia-benchmark/GAIA"
SPLITS = ("validation", "test")
# Package data: found through the installed package, so a wheel install has it too.
BUNDLED_SAMPLE = Path(evalui.__file__).resolve().parent / "data" / "gaia_sample"
UNKNOWN_ANSWER = "?"  # the test split hides its answers behind this
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GaiaQuestion:
    task_id: str
    question: str
    final_answer: str | None
    level: str | None
    file_name: str = ""
    file_path: str | None = None
    steps: int | None = None
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def has_truth(self) -> bool:
        return self.final_answer not in (None, "", UNKNOWN_ANSWER)

    def record(self) -> dict:
        """The dict handed to a user's agent: GAIA's own field names plus the attachment's path."""
        return {"task_id": self.task_id, "Question": self.question, "question": self.question,
                "Level": self.level, "file_name": self.file_name, "file_path": self.file_path, **self.extra}


def _steps(record: dict) -> int | None:
    meta = record.get("Annotator Metadata") or {}
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except (ValueError, RecursionError):  # the step count is informative only: skip what cannot be read
            return None
    try:
        return int(str(meta.get("Number of steps", "")).strip())
    except ValueError:
        return None


def _question(record: dict, folder: Path | None, source: str, line: int) -> GaiaQuestion:
    text = record.get("Question", record.get("question"))
    if not isinstance(text, str) or not text.strip():
        raise InputError('missing "Question" (or "question")', path=source, line=line)
    answer = record.get("Final answer", record.get("final_answer"))
    level = record.get("Level", record.get("level"))
    file_name = str(record.get("file_name") or "")
    file_path = None
    if file_name and folder is not None:
        candidate = (folder / file_name).resolve()
        # A metadata file must not point outside its own folder.
        if folder.resolve() in candidate.parents and candidate.is_file():
            file_path = str(candidate)
    task_id = str(record.get("task_id") or f"q{line:04d}")
    known = {"task_id", "Question", "question", "Final answer", "final_answer", "Level", "level", "file_name",
             "file_path", "Annotator Metadata"}
    return GaiaQuestion(
        task_id=task_id,
        question=text.strip(),
        final_answer=None if answer is None else str(answer),
        level=None if level is None else str(level),
        file_name=file_name,
        file_path=file_path,
        steps=_steps(record),
        extra={k: v for k, v in record.items() if k not in known and isinstance(v, (str, int, float, bool))},
    )


def _select(questions: list[GaiaQuestion], level: str | int | None, limit: int | None) -> list[GaiaQuestion]:
    if level not in (None, "", "all"):
        questions = [q for q in questions if q.level == str(level)]
    return questions[: limit or None]


def _split_folder(folder: Path, split: str) -> Path:
    for candidate in (folder / "2023" / split, folder / split, folder):
        if (candidate / "metadata.jsonl").is_file() or (candidate / "metadata.parquet").is_file():
            return candidate
    raise InputError(f"no metadata.jsonl or metadata.parquet for split {split!r} (looked in 2023/{split}/, {split}/ and the folder itself)",
                     path=str(folder))


def load_folder(folder: str | Path, split: str = "validation", level=None, limit: int | None = None) -> list[GaiaQuestion]:
    """A local copy in GAIA's layout: ``2023/<split>/metadata.{parquet,jsonl}`` and attachments beside it."""
    from evalui.benchmarks.gaia.metadata import read_metadata_records

    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("no such folder", path=str(folder))
    split_dir = _split_folder(folder, split)
    metadata = split_dir / "metadata.parquet"
    if not metadata.is_file():
        metadata = split_dir / "metadata.jsonl"
    records = read_metadata_records(metadata)
    questions = [_question(r, split_dir, str(metadata), line) for line, r in records]
    return _select(questions, level, limit)


def load_questions_file(path: str | Path, level=None, limit: int | None = None) -> list[GaiaQuestion]:
    """A JSON array of records with "Question" or "question" and "Final answer" (the testing recipe's format)."""
    from evalui.benchmarks.gaia.metadata import MAX_ROWS, check_text_size

    path = check_input_file(path)
    check_text_size(path)
    records = read_json_array(path, "question records")
    if len(records) > MAX_ROWS:
        raise InputError(f"the file has {len(records):,} question records; evalui reads at most {MAX_ROWS:,}",
                         path=str(path))
    questions = []
    for index, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            raise InputError(f"record {index} is not a JSON object", path=str(path))
        questions.append(_question(record, path.parent, f"{path} record", index))
    return _select(questions, level, limit)


def load_bundled_sample(level=None, limit: int | None = None) -> list[GaiaQuestion]:
    """evalui's own small GAIA-style sample, so the tab works offline (not GAIA's questions)."""
    return load_folder(BUNDLED_SAMPLE, "validation", level, limit)


def default_cache_dir() -> Path:
    from evalui.config import data_dir

    return data_dir() / "cache" / "gaia"


def download_gaia(split: str = "validation", token: str | None = None, cache_dir: str | Path | None = None) -> Path:
    """Fetch ``2023/<split>`` of the gated dataset (metadata and attachments) into the cache."""
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}; choose {' or '.join(SPLITS)}")
    token = token or os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    if not token:
        raise InputError(
            "GAIA is a gated dataset: set HF_TOKEN to a Hugging Face token whose account has been "
            f"granted access at https://huggingface.co/datasets/{HF_REPO}"
        )
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, LocalEntryNotFoundError, RepositoryNotFoundError

    target = Path(cache_dir) if cache_dir else default_cache_dir()
    unreachable = hub_unreachable()
    if unreachable:
        try:
            _split_folder(target, split)
        except InputError:
            raise InputError(f"{unreachable}, and GAIA {split} is not cached yet; use a local folder, "
                             "a questions file or the bundled sample") from None
        log.warning("%s; using the copy of GAIA %s cached in %s", unreachable, split, target)
        return target
    try:
        snapshot_download(repo_id=HF_REPO, repo_type="dataset", allow_patterns=[f"2023/{split}/*"],
                          token=token, local_dir=str(target))
    except GatedRepoError:
        raise InputError(
            f"your token has no access to the gated dataset {HF_REPO} yet: request it at "
            f"https://huggingface.co/datasets/{HF_REPO} and wait for approval"
        ) from None
    except RepositoryNotFoundError:
        raise InputError(f"{HF_REPO} was not found, or the token is not valid") from None
    except LocalEntryNotFoundError:
        raise InputError("cannot reach the Hugging Face Hub and nothing is cached yet; "
                         "use a local folder, a questions file or the bundled sample") from None
    except HfHubHTTPError as exc:
        raise InputError(f"the Hugging Face Hub refused the download: {exc}") from None
    except OSError as exc:
        raise InputError(f"cannot download from the Hugging Face Hub ({exc})") from None
    return target


def load_hf(split: str = "validation", level=None, limit: int | None = None, token: str | None = None,
            cache_dir: str | Path | None = None) -> list[GaiaQuestion]:
    return load_folder(download_gaia(split, token, cache_dir), split, level, limit)
