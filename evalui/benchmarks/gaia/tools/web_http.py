"""One GET for the web tool: public addresses only, one deadline for the whole download.

The address is checked where the socket connects, with the addresses the resolver gave for that
very connection, and again on every redirect, so neither a redirect nor a name that changes its
answer between two lookups leads inside the network (url_policy.check_web_address). A watchdog
closes the socket when the deadline passes: a server that sends one byte every few seconds keeps
every per-read timeout happy, but not the deadline. No proxy is used (the check would otherwise
judge the proxy's address, not the page's), and no compression is asked for.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from evalui.endpoint.url_policy import RefusedURL, check_web_address

READ_TIMEOUT_S = 10.0  # connecting, and each read
DEADLINE_S = 20.0  # the whole download, redirects included
CAP_BYTES = 2 * 1024 * 1024
MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)
USER_AGENT = "evalui-gaia-agent"


class FetchDeadline(TimeoutError):
    """The download went past the deadline and was cut off."""


class _Watch:
    """The socket of the hop in flight, shut when the deadline passes."""

    def __init__(self, deadline_s: float):
        self.deadline_s = deadline_s
        self.ends = time.monotonic() + deadline_s
        self.fired = False
        self.sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(deadline_s, self._fire)
        self._timer.daemon = True

    def __enter__(self):
        self._timer.start()
        return self

    def __exit__(self, *exc):
        self._timer.cancel()

    def _fire(self):
        with self._lock:
            self.fired = True
            if self.sock is not None:
                try:
                    self.sock.shutdown(socket.SHUT_RDWR)  # a blocked read returns at once
                except OSError:
                    pass

    def remaining(self) -> float:
        left = self.ends - time.monotonic()
        if left <= 0 or self.fired:
            raise self.error()
        return left

    def error(self) -> FetchDeadline:
        return FetchDeadline(f"the download took longer than {self.deadline_s:g} s (the web tool's limit for one "
                             "page, redirects included) and was cut off")

    def adopt(self, sock: socket.socket) -> None:
        with self._lock:
            if self.fired:
                sock.close()
                raise self.error()
            self.sock = sock


def _connector(watch: _Watch, allowed: frozenset[str]):
    def create_connection(address, timeout=None, source_address=None):
        host, port = address
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
        except (socket.gaierror, UnicodeError):
            infos = []
        check_web_address(host, port, [info[4][0] for info in infos], allowed)
        failure: OSError | None = None
        for family, kind, proto, _, sockaddr in infos:  # every address was checked above
            sock = socket.socket(family, kind, proto)
            try:
                sock.settimeout(min(READ_TIMEOUT_S, watch.remaining()))
                watch.adopt(sock)
                sock.connect(sockaddr)
                return sock
            except FetchDeadline:
                raise
            except OSError as exc:
                sock.close()
                failure = exc
        raise failure or OSError(f"cannot connect to {host}")

    return create_connection


def _connection(url: str, watch: _Watch, allowed: frozenset[str]) -> tuple[http.client.HTTPConnection, str]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RefusedURL(f"only http(s) addresses with a host are fetched, not {parts.scheme or 'this'}:")
    try:
        port = parts.port
    except ValueError:
        raise RefusedURL("the address has an invalid port") from None
    timeout = min(READ_TIMEOUT_S, watch.remaining())
    if parts.scheme == "https":
        conn = http.client.HTTPSConnection(parts.hostname, port, timeout=timeout, context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(parts.hostname, port, timeout=timeout)
    conn._create_connection = _connector(watch, allowed)  # the one place http.client opens its socket
    path = parts.path or "/"
    return conn, f"{path}?{parts.query}" if parts.query else path


def _body(response: http.client.HTTPResponse, watch: _Watch) -> bytes:
    chunks, size = [], 0
    while size < CAP_BYTES:
        watch.remaining()
        chunk = response.read1(min(65536, CAP_BYTES - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if watch.fired:  # a shut socket reads as the end of the page: it is not
        raise watch.error()
    return b"".join(chunks)


@dataclass(frozen=True)
class Response:
    """What one GET ended with: the last address (after redirects), the status, headers and body."""

    url: str
    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes  # at most CAP_BYTES; empty for an error status (>= 400), whose body is never read


def fetch(url: str, *, allowed: frozenset[str] = frozenset(), deadline_s: float = DEADLINE_S,
          headers: dict[str, str] | None = None) -> Response:
    """The response whatever its status (``get`` turns an error status into an exception).

    ``headers`` are sent besides the default user agent (which they may replace); compression is
    never asked for. Raises RefusedURL, FetchDeadline or RuntimeError, as ``get`` does."""
    sent = {"user-agent": USER_AGENT, **{k.lower(): v for k, v in (headers or {}).items()},
            "accept-encoding": "identity"}
    with _Watch(deadline_s) as watch:
        try:
            return _get(url, watch, allowed, sent)
        except FetchDeadline:
            raise
        except (OSError, http.client.HTTPException, ssl.SSLError) as exc:
            if watch.fired:  # the watchdog shut the socket: that is why the read failed
                raise watch.error() from None
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from None


def get(url: str, *, allowed: frozenset[str] = frozenset(), deadline_s: float = DEADLINE_S) -> tuple[str, str]:
    """The page's text (at most CAP_BYTES, decoded as UTF-8) and its content type.

    ``allowed`` names ``host:port`` pairs reachable besides public addresses (the operator's
    search engine); EVALUI_WEB_ALLOW_HOSTS always counts. Raises RefusedURL, FetchDeadline,
    OSError or RuntimeError (an HTTP error status, too many redirects)."""
    response = fetch(url, allowed=allowed, deadline_s=deadline_s)
    if response.status >= 400:
        raise RuntimeError(f"HTTP {response.status} {response.reason}"[:200])
    kind = next((value for name, value in response.headers if name.lower() == "content-type"), "")
    return response.body.decode("utf-8", errors="replace"), kind


def _get(url: str, watch: _Watch, allowed: frozenset[str], headers: dict[str, str]) -> Response:
    for _ in range(MAX_REDIRECTS + 1):
        conn, target = _connection(url, watch, allowed)
        try:
            conn.request("GET", target, headers=headers)
            response = conn.getresponse()
            location = response.getheader("location")
            if response.status in REDIRECTS and location:
                url = urljoin(url, location)
                continue
            body = _body(response, watch) if response.status < 400 else b""
            return Response(url, response.status, response.reason, response.getheaders(), body)
        finally:
            conn.close()
    raise RuntimeError(f"more than {MAX_REDIRECTS} redirects")
