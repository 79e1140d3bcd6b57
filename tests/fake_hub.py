"""A tiny stand-in for the Hugging Face Hub on 127.0.0.1, enough for snapshot_download of one
dataset: repo info with its file list, and file downloads. Or a gated refusal.

With ``writable=True`` it also takes what ``Dataset.push_to_hub`` sends: repo creation, the
preupload check (Markdown inline, other files through LFS: batch, then PUT) and commits, whose
files land in ``files``. ``tokens`` records the Authorization header of each write."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub:
    def __init__(self, repo_id: str, files: dict[str, bytes] | None = None, gated: bool = False,
                 writable: bool = False):
        self.repo_id, self.files, self.gated, self.writable = repo_id, files or {}, gated, writable
        self.paths: list[str] = []
        self.commits: list[dict] = []
        self.tokens: list[str | None] = []
        self.created = False
        self.lfs: dict[str, bytes] = {}
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
                if path.startswith(tree_prefix) and hub.writable:
                    listing = hub._tree(path[len(tree_prefix):].partition("/")[2], "recursive=true" in self.path)
                    if listing is None:
                        self._send(404, b"", {"X-Error-Code": "EntryNotFound"}, head)
                    else:
                        self._send(200, json.dumps(listing).encode(), {"content-type": "application/json"}, head)
                elif path.startswith(tree_prefix):
                    listing = [{"type": "file", "path": name, "size": len(data),
                                "oid": hashlib.sha1(data).hexdigest()} for name, data in hub.files.items()]
                    self._send(200, json.dumps(listing).encode(), {"content-type": "application/json"}, head)
                elif path.startswith(info_prefix) or (hub.writable and hub.created and path == info_prefix[:-len("/revision/")]):
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

            def do_PUT(self):
                path = unquote(urlparse(self.path).path)
                hub.paths.append("PUT " + path)
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if hub.writable and path.startswith("/lfs-upload/"):
                    hub.lfs[path[len("/lfs-upload/"):]] = body
                    self._send(200)
                else:
                    self._send(403)

            def do_POST(self):
                path = unquote(urlparse(self.path).path)
                hub.paths.append("POST " + path)
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if not hub.writable:
                    self._send(403, b"", {"X-Error-Code": "ReadOnly"})
                    return
                hub.tokens.append(self.headers.get("authorization"))
                reply = hub._write(path, body)
                if reply is None:
                    self._send(404, b"", {"X-Error-Code": "RepoNotFound"})
                else:
                    self._send(200, json.dumps(reply).encode(), {"content-type": "application/json"})

            def do_HEAD(self):
                self._handle(head=True)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    def _tree(self, folder: str, recursive: bool) -> list[dict] | None:
        """The entries under ``folder`` (files and, unless recursive, sub-folders); None when it does not exist."""
        prefix = f"{folder.strip('/')}/" if folder.strip("/") else ""
        entries = {}
        for name, data in self.files.items():
            if not name.startswith(prefix):
                continue
            head, _, tail = name[len(prefix):].partition("/")
            if tail and not recursive:
                entries[prefix + head] = {"type": "directory", "path": prefix + head, "oid": COMMIT}
            else:
                entries[name] = {"type": "file", "path": name, "size": len(data), "oid": hashlib.sha1(data).hexdigest()}
        return list(entries.values()) if entries or not prefix else None

    def _write(self, path: str, body: bytes) -> dict | None:
        repo = f"/api/datasets/{self.repo_id}/"
        if path == "/api/validate-yaml":  # the dataset card's metadata: always fine here
            return {"errors": [], "warnings": []}
        if path == "/api/repos/create":
            self.created = True
            asked = json.loads(body or b"{}")  # huggingface_hub 1.x sends "visibility", older ones "private"
            self.private = asked.get("visibility") == "private" or asked.get("private") is True
            return {"url": f"{self.url}/datasets/{self.repo_id}", "name": self.repo_id}
        if path.startswith(repo + "preupload/"):
            asked = json.loads(body or b"{}").get("files", [])
            return {"files": [{"path": f["path"], "uploadMode": "regular" if f["path"].endswith(".md") else "lfs",
                               "shouldIgnore": False} for f in asked]}
        if path == f"/datasets/{self.repo_id}.git/info/lfs/objects/batch":
            asked = json.loads(body or b"{}").get("objects", [])
            return {"transfer": "basic", "objects": [
                {"oid": o["oid"], "size": o["size"], "authenticated": True,
                 "actions": {"upload": {"href": f"{self.url}/lfs-upload/{o['oid']}"}}} for o in asked]}
        if path.startswith(repo + "commit/"):
            lines = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
            commit = {"header": next((x["value"] for x in lines if x["key"] == "header"), {}), "files": {}}
            for line in lines:
                if line["key"] == "file":
                    content = line["value"]["content"]
                    data = base64.b64decode(content) if line["value"].get("encoding") == "base64" else content.encode()
                    commit["files"][line["value"]["path"]] = data
                elif line["key"] == "lfsFile":
                    commit["files"][line["value"]["path"]] = self.lfs[line["value"]["oid"]]
                elif line["key"] == "deletedFile":
                    self.files.pop(line["value"]["path"], None)
            self.files.update(commit["files"])
            self.commits.append(commit)
            return {"commitUrl": f"{self.url}/datasets/{self.repo_id}/commit/{COMMIT}", "commitOid": COMMIT,
                    "success": True, "pullRequestUrl": None}
        return None

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
