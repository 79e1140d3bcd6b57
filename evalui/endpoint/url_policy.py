"""Which base URLs the server may send requests to, and how a URL is shown without its secrets.

In a shared deployment (a Space, ``--auth``, or an allow-list of users) a visitor chooses the base
URL, so the server must not become a way into its own network: loopback, private, link-local and
other non-public addresses are refused unless the operator names the host in
``EVALUI_ALLOWED_HOSTS``. A query string is refused there too, since it is where keys hide.
On one person's own machine every URL is allowed: pointing at a local vLLM is the normal case.

The GAIA agent's web tool has a policy of its own (``check_web_address``): the model, not the
operator, chooses those addresses, so only public ones are reached, on every deployment, and the
endpoint allow-list does not open them. The operator may name hosts for the web tool alone in
``EVALUI_WEB_ALLOW_HOSTS``.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
from urllib.parse import SplitResult, parse_qsl, urlencode, urlsplit, urlunsplit

from evalui.settings import read

ALLOWED_HOSTS_ENV = "EVALUI_ALLOWED_HOSTS"
WEB_ALLOW_HOSTS_ENV = "EVALUI_WEB_ALLOW_HOSTS"
SHARED_ENV = "EVALUI_SHARED"  # app.py sets it behind --auth
# NAT64's well-known prefix carries an IPv4 address in its last 32 bits.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
REDACTED = "[redacted]"

_server_hosts: set[str] = set()
_server_hosts_lock = threading.Lock()


class RefusedURL(ValueError):
    """A base URL that evalui will not send requests to; the message says why and what to do."""


def shared_deployment() -> bool:
    """True on a Space, behind ``--auth`` (app.py sets EVALUI_SHARED), or with an allow-list of users."""
    return bool(os.environ.get("SPACE_ID") or read("shared") or read("allowed_users"))


def allow_server_host(host_port: str) -> None:
    """Allow an endpoint the server started itself (the offline local model on 127.0.0.1)."""
    with _server_hosts_lock:
        _server_hosts.add(host_port.lower())


def _allowed_hosts() -> set[str]:
    named = _named(read("allowed_hosts"))
    with _server_hosts_lock:
        return named | _server_hosts


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv6 form that carries an IPv4 address reaches that address: the IPv4 one must be public too.
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None and not _is_public(str(embedded)):
            return False
        if ip.ipv4_mapped:
            ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_multicast
                                 or ip.is_reserved or ip.is_unspecified)


def _resolve(host: str) -> list[str]:
    try:
        return [str(ipaddress.ip_address(host))]  # a literal address needs no resolver (nor IPv6 support)
    except ValueError:
        pass
    try:
        return [info[4][0] for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)]
    except (socket.gaierror, UnicodeError):
        return []


def parse_base_url(url: str) -> SplitResult:
    """The URL split into parts, after checking it is an absolute http(s) URL with a host."""
    text = (url or "").strip()
    if not text:
        raise RefusedURL("the base URL is empty")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        raise RefusedURL(f"the base URL must start with http:// or https:// (got {redact_url(text)!r})")
    try:
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        raise RefusedURL(f"the base URL has an invalid port ({redact_url(text)!r})") from None
    if not parts.hostname:
        raise RefusedURL(f"the base URL has no host ({redact_url(text)!r})")
    if parts.fragment:
        raise RefusedURL("the base URL must not have a #fragment")
    return parts


def check_base_url(url: str, *, shared: bool | None = None) -> str:
    """Return the URL if evalui may send requests there; raise RefusedURL otherwise."""
    parts = parse_base_url(url)
    if not (shared_deployment() if shared is None else shared):
        return url.strip()
    host = parts.hostname.lower()
    netloc_host = f"{host}:{parts.port}" if parts.port else host
    allowed = _allowed_hosts()
    if host in allowed or netloc_host in allowed:
        return url.strip()
    if parts.query:
        raise RefusedURL("a base URL with a query string is refused on a shared deployment "
                         f"(the operator may allow its host in {ALLOWED_HOSTS_ENV})")
    addresses = _resolve(host)
    if not addresses:
        raise RefusedURL(f"the host {host!r} of the base URL cannot be resolved")
    private = sorted({a for a in addresses if not _is_public(a)})
    if private:
        raise RefusedURL(
            f"the host {host!r} resolves to a loopback, private or link-local address ({', '.join(private)}); "
            f"on a shared deployment only public endpoints are allowed unless the operator names the host "
            f"in {ALLOWED_HOSTS_ENV}"
        )
    return url.strip()


def _named(value: str) -> set[str]:
    return {h.strip().lower() for h in value.split(",") if h.strip()}


def web_allowed_hosts() -> set[str]:
    """Hosts (``host`` or ``host:port``) the operator opened to the web tool: EVALUI_WEB_ALLOW_HOSTS only."""
    return _named(read("web_allow_hosts"))


def web_host_named(host: str, port: int | None, extra: set[str] = frozenset()) -> bool:
    host = host.lower().strip("[]")
    named = web_allowed_hosts() | extra
    return host in named or (port is not None and bool({f"{host}:{port}", f"[{host}]:{port}"} & named))


def check_web_address(host: str, port: int | None, addresses: list[str], extra: set[str] = frozenset()) -> None:
    """Raise RefusedURL unless the web tool may connect to ``host``, which resolved to ``addresses``.

    Called with the addresses about to be connected to (after DNS resolution, on every redirect),
    so a name that resolves to a private address, or changes its answer between two lookups,
    cannot lead the tool inside. ``extra`` names hosts the operator configured elsewhere for one
    purpose (the search engine's URL)."""
    if web_host_named(host, port, extra):
        return
    if not addresses:
        raise RefusedURL(f"the host {host!r} cannot be resolved")
    private = sorted({a for a in addresses if not _is_public(a)})
    if private:
        raise RefusedURL(f"the host {host!r} resolves to a loopback, private, link-local or reserved address "
                         f"({', '.join(private)}); the web tool reaches public addresses only, unless the operator "
                         f"names the host in {WEB_ALLOW_HOSTS_ENV}")


def redact_url(url: str) -> str:
    """The URL with any user:password and every query value replaced: safe to store and show."""
    try:
        parts = urlsplit(url or "")
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(name, REDACTED) for name, _ in pairs], safe="[]") if pairs else REDACTED
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def url_secrets(url: str) -> list[str]:
    """Secrets a URL carries (password, user name, query values), for redacting them anywhere."""
    try:
        parts = urlsplit(url or "")
    except ValueError:
        return []
    found = [parts.password or "", parts.username or ""] if "@" in parts.netloc else []
    found += [value for _, value in parse_qsl(parts.query, keep_blank_values=True)]
    return [s for s in found if len(s) >= 4]
