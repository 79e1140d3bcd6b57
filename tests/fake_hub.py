"""A tiny stand-in for the Hugging Face Hub on 127.0.0.1, enough for snapshot_download of one
dataset: repo info with its file list, and file downloads. Or a gated refusal."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub:
    def __init__(self, repo_id: str, files: dict[str, bytes] | None = None, gated: bool = False):
        self.repo_id, self.files, self.gated = repo_id, files or {}, gated
        self.paths: list[str] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, status, body=b"", headers=None, head=False):
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def _handle(self, head=False):
                path = unquote(urlparse(self.path).path)
                hub.paths.append(path)
                if hub.gated:
                    body = json.dumps({"error": "Access to this dataset is restricted."}).encode()
                    self._send(403, body, {"X-Error-Code": "GatedRepo", "content-type": "application/json"}, head)
                    return
                info_prefix = f"/api/datasets/{hub.repo_id}/revision/"
                resolve_prefix = f"/datasets/{hub.repo_id}/resolve/"
                tree_prefix = f"/api/datasets/{hub.repo_id}/tree/"
                if path.startswith(tree_prefix):
                    listing = [{"type": "file", "path": name, "size": len(data),
                                "oid": hashlib.sha1(data).hexdigest()} for name, data in hub.files.items()]
                    self._send(200, json.dumps(listing).encode(), {"content-type": "application/json"}, head)
                elif path.startswith(info_prefix):
                    body = json.dumps({"id": hub.repo_id, "sha": COMMIT, "private": False, "gated": "manual",
                                       "siblings": [{"rfilename": name} for name in hub.files]}).encode()
                    self._send(200, body, {"content-type": "application/json"}, head)
                elif path.startswith(resolve_prefix):
                    name = path[len(resolve_prefix):].split("/", 1)[1]
                    if name not in hub.files:
                        self._send(404, b"", {"X-Error-Code": "EntryNotFound"}, head)
                        return
                    data = hub.files[name]
                    etag = hashlib.sha1(data).hexdigest()
                    self._send(200, data, {"ETag": f'"{etag}"', "X-Repo-Commit": COMMIT,
                                           "content-type": "application/octet-stream"}, head)
                else:
                    self._send(404, b"", {"X-Error-Code": "RepoNotFound"}, head)

            def do_GET(self):
                self._handle()

            def do_HEAD(self):
                self._handle(head=True)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()


def folder_files(folder: Path, prefix: str) -> dict[str, bytes]:
    return {f"{prefix}/{p.name}": p.read_bytes() for p in folder.iterdir() if p.is_file()}
