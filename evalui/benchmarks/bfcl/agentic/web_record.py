"""The web recording of a BFCL web-search run: every search and page, so the run can be replayed offline.

A recording is a directory of small JSON files, one per question asked of the web:

    search/<sha256 of the key>.json   key {"kind": "search", "q": keywords, "kl": region}
    fetch/<sha256 of the key>.json    key {"kind": "fetch", "url": url}

The key holds only what the model chose (its keywords and region, or the URL), never the provider,
its address or its key, so a recording made through SerpAPI replays under any provider and no
secret can sit in a file name. A file holds the key and the answer: the organic results (title,
link, snippet), or the page's last address, status, content type and body (the fetch modes are
bfcl's own processing, applied on replay as on the live run), or an error message.

The first answer to a key is the one kept: while recording, a key already in the directory is
answered from it, so the live run and its replay see the same text even when a page changed
between two fetches (errors included, except a search's rate limit, which bfcl retries).
``recording_hash`` names the recording's content for a run's provenance.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

from filelock import FileLock

from evalui.jsonl import write_text_atomically

KINDS = ("search", "fetch")
LOCKS = ".locks"
REDACTED = "[redacted]"


class WebReplayMiss(LookupError):
    """The replay has no answer for this question; a replay never goes online."""


def search_key(keywords: str, region: str | None) -> dict:
    return {"kind": "search", "q": keywords, "kl": region}


def fetch_key(url: str) -> dict:
    return {"kind": "fetch", "url": url}


def canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def key_digest(key: dict) -> str:
    return hashlib.sha256(canonical(key)).hexdigest()


def encode_body(body: bytes) -> dict:
    """A body as readable text where it is UTF-8, base64 otherwise (the encoding is bfcl's to guess)."""
    try:
        return {"body": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"body_base64": base64.b64encode(body).decode("ascii")}


def decode_body(answer: dict) -> bytes:
    if "body_base64" in answer:
        return base64.b64decode(answer["body_base64"])
    return answer.get("body", "").encode("utf-8")


class WebStore:
    """One recording directory; safe to share between threads and processes of one run."""

    def __init__(self, directory: str | os.PathLike, secrets: tuple[str, ...] = ()):
        self.directory = Path(directory)
        # Values that must never be written (the SerpAPI key); checked on every record.
        self.secrets = tuple(s for s in secrets if s)

    def _path(self, key: dict) -> Path:
        return self.directory / key["kind"] / f"{key_digest(key)}.json"

    def get(self, key: dict) -> dict | None:
        """The recorded answer for ``key``, or None."""
        try:
            record = json.loads(self._path(key).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        if record.get("key") != key:  # a file renamed or edited by hand answers nothing
            return None
        return record["answer"]

    def lock(self, key: dict) -> FileLock:
        """Held while one key is asked live and written, so two workers never record different answers."""
        folder = self.directory / LOCKS
        folder.mkdir(parents=True, exist_ok=True)
        return FileLock(str(folder / f"{key_digest(key)}.lock"))

    def put(self, key: dict, answer: dict, source: str) -> None:
        data = canonical({"key": key, "source": source, "answer": answer})
        text = data.decode("utf-8")
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomically(path, text)  # readers see the whole record or none


def recording_files(directory: str | os.PathLike) -> list[Path]:
    root = Path(directory)
    return sorted(path for kind in KINDS for path in (root / kind).glob("*.json"))


def recording_hash(directory: str | os.PathLike) -> str:
    """SHA-256 over the recording's files (each one's path under the directory and the SHA-256 of
    its bytes, sorted): two recordings with the same hash answer every question the same way."""
    root = Path(directory)
    digest = hashlib.sha256()
    for path in recording_files(root):
        digest.update(f"{path.relative_to(root).as_posix()} {hashlib.sha256(path.read_bytes()).hexdigest()}\n"
                      .encode("ascii"))
    return digest.hexdigest()
