#!/usr/bin/env python3
"""Reform's HTTP test server: paged APIs, failures, auth, OAuth2 and a GitHub-like API on loopback (stdlib only).

    python3 Tests/Server/reform_test_server.py [--port 0] [--host 127.0.0.1] [--quiet] [--verbose]

Prints exactly one line, ``listening on PORT``, to stdout once it accepts connections, then
serves until SIGTERM or SIGINT (exit status 0). It also exits when the process that started it
goes away (so a crashed test run leaves no server behind) unless --keep-orphan is given.
Endpoints are listed in Tests/Server/README.md.

HTTP/1.1 with keep-alive; one thread per connection. Requests are parsed by a small fast path
(not email.parser) and every response goes out in one send, with TCP_NODELAY on, so the
server stays cheap enough to benchmark clients against (Benchmarks/http).
"""

import argparse
import base64
import binascii
import calendar
import csv
import datetime
import email.utils
import gzip
import hashlib
import hmac
import html
import io
import itertools
import json
import math
import re
import os
import select
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
import traceback
import zlib
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, quote, unquote, unquote_plus, urlencode

DEFAULT_TOTAL = 47
BASIC_USER, BASIC_PASS = "reform", "s3cret"
API_KEY = "k-123"
CLIENT_ID, CLIENT_SECRET = "reform", "s3cret"
REFRESH_TOKEN = "r-1"
MAX_BODY = 16 * 1024 * 1024
POLL_EVENTS = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR | getattr(select, "POLLRDHUP", 0)


# --------------------------------------------------------------------------- data

def make_item(i):
    name = f"商品 {i}" if i % 5 == 0 else f"item {i}"
    return {"id": i, "name": name, "price": i * 1.25, "tags": [f"t{i % 3}"]}


def dumps(value):
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": ")).encode("utf-8")


class State:
    """Everything mutable, behind one lock: the request log, failure counters and OAuth tokens."""

    def __init__(self):
        self.lock = threading.Lock()
        self.datasets = {}
        self.bench_cache = {}
        self.gh_timelines = {}
        self.seq = itertools.count(1)
        self.connections = itertools.count(1)
        self.reset()

    def reset(self):
        with self.lock:
            self.log = []
            self.counters = {}
            self.tokens_issued = 0
            self.current_token = None
            self.signing = None
            self.signed = {}
            self.gh_config = dict(GH_DEFAULTS)
            self.gh_events = ()  # one (touch, add) per POST /gh/_admin/advance; generation = len
            self.gh_window_start = None  # time.monotonic() of the rate window's first counted request
            self.gh_window_wall = 0.0  # the same instant as time.time(), for X-RateLimit-Reset
            self.gh_used = 0
            self.jobs = {}  # id -> {"rows", "parts", "polls", "fail", "files", "polled"}
            self.graphql_windows = {}  # rate key -> (window start (time.time()), requests counted, refused)

    def dataset(self, total):
        items = self.datasets.get(total)
        if items is None:
            items = [make_item(i) for i in range(1, total + 1)]
            if len(self.datasets) < 64:
                self.datasets[total] = items
        return items

    def count(self, key):
        """Bumps and returns the attempt number (1-based) for a failure key."""
        with self.lock:
            n = self.counters.get(key, 0) + 1
            self.counters[key] = n
            return n

    def record(self, method, path, query, connection):
        entry = {"seq": 0, "method": method, "path": path, "query": query, "connection": connection,
                 "completed": False, "client_closed": False, "status": None, "at": time.monotonic()}
        with self.lock:
            entry["seq"] = next(self.seq)
            self.log.append(entry)
        return entry

    def issue_token(self):
        with self.lock:
            self.tokens_issued += 1
            self.current_token = f"tok-{self.tokens_issued}"
            return self.current_token

    def expire_token(self):
        with self.lock:
            old, self.current_token = self.current_token, None
            return old

    def signed_attempt(self, key, attempt):
        """Appends one checked signature for `key`; returns every attempt so far."""
        with self.lock:
            attempts = self.signed.setdefault(key, [])
            attempts.append(attempt)
            return list(attempts)

    def token_ok(self, token):
        with self.lock:
            return token is not None and token == self.current_token

    # ---- GitHub-like API

    def gh_configure(self, changes):
        """Applies validated config changes; returns the effective config. Changing a rate_* key
        starts a fresh rate window."""
        with self.lock:
            config = dict(self.gh_config, **changes)
            if "issues_per_repo" in changes:
                gh_check_issue_count(config["issues_per_repo"], self.gh_events)
            self.gh_config = config
            if any(k.startswith("rate_") for k in changes):
                self.gh_window_start, self.gh_used = None, 0
            return gh_effective(config)

    def gh_advance(self, touch, add):
        with self.lock:
            events = self.gh_events + ((touch, add),)
            gh_check_issue_count(self.gh_config["issues_per_repo"], events)
            self.gh_events = events
            return len(events)

    def gh_timeline(self):
        """(updated, edited, newest) for the current generation; the same for every repository."""
        with self.lock:
            key = (self.gh_config["issues_per_repo"], self.gh_events)
        timeline = self.gh_timelines.get(key)
        if timeline is None:
            timeline = gh_build_timeline(*key)
            if len(self.gh_timelines) > 64:
                self.gh_timelines.clear()
            self.gh_timelines[key] = timeline
        return timeline

    def gh_take(self):
        """Counts one /gh data request against the rate limit. None without a limit, else
        (config, used, allowed, seconds until the window ends, epoch second it ends)."""
        with self.lock:
            config = self.gh_config
            limit = config["rate_limit"]
            if limit is None:
                return None
            window = config["rate_window"]
            now = time.monotonic()
            if self.gh_window_start is None or now >= self.gh_window_start + window:
                self.gh_window_start, self.gh_window_wall, self.gh_used = now, time.time(), 0
            allowed = self.gh_used < limit
            if allowed:
                self.gh_used += 1
            left = self.gh_window_start + window - now
            return config, self.gh_used, allowed, left, math.ceil(self.gh_window_wall + window)


# --------------------------------------------------------------------------- GitHub-like API data

GH_T0 = calendar.timegm((2026, 1, 1, 0, 0, 0))  # 2026-01-01T00:00:00Z, issue times count from here
GH_ACME_REPOS = ["widgets", "gadgets", "gizmos", "doohickeys"]
GH_MAX_ORG = 1000
GH_MAX_ISSUES = 999999  # issue ids are (org * 10000 + repo) * 1000000 + number
GH_DEFAULTS = {"issues_per_repo": 12, "delay_ms": 0, "rate_limit": None, "rate_window": 60.0,
               "rate_style": "github", "rate_status": None}
GH_NOT_FOUND = {"message": "Not Found"}
GH_INVALID = {"message": "Validation Failed"}
GH_RATE_BODY = {"message": "API rate limit exceeded for 127.0.0.1. (But here's the good news: "
                           "Authenticated requests get a higher rate limit.)",
                "documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}
GH_ORG_RE = re.compile(r"org-([1-9][0-9]{0,3})")
GH_REPO_RE = re.compile(r"repo-([1-9][0-9]{0,3})")


class GhError(Exception):
    """A GitHub-style error answer: status and {"message": ...}."""

    def __init__(self, status, body):
        super().__init__(body["message"])
        self.status, self.body = status, body


def gh_org(org):
    """(code, number of repositories) for an existing organisation (acme is code 0, org-N is N), else None."""
    if org == "acme":
        return 0, len(GH_ACME_REPOS)
    m = GH_ORG_RE.fullmatch(org)
    if m and int(m.group(1)) <= GH_MAX_ORG:
        n = int(m.group(1))
        return n, n
    return None


def gh_repo_name(code, k):
    return GH_ACME_REPOS[k - 1] if code == 0 else f"repo-{k}"


def gh_repo_index(code, count, name):
    """The 1-based index k of repository `name`, or None."""
    if code == 0:
        return GH_ACME_REPOS.index(name) + 1 if name in GH_ACME_REPOS else None
    m = GH_REPO_RE.fullmatch(name)
    return int(m.group(1)) if m and int(m.group(1)) <= count else None


def gh_time(epoch):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def gh_parse_time(text):
    """An ISO 8601 timestamp as epoch seconds (no zone = UTC); GhError 422 if it is not one."""
    t = text.find("T")
    if t >= 0:
        text = text[:t] + text[t:].replace(" ", "+")  # an unencoded '+' in "+01:00" arrives as a space
    try:
        value = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise GhError(422, GH_INVALID)
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value.timestamp()


def gh_check_issue_count(n0, events):
    if n0 + sum(add for _, add in events) > GH_MAX_ISSUES:
        raise BadRequest(f"at most {GH_MAX_ISSUES} issues per repository")


def gh_build_timeline(n0, events):
    """Replays the advances: updated[i] is issue i's updated_at (epoch), edited[i] the generation
    of its last edit (0: never); index 0 is unused. Every repository has the same timeline."""
    updated = [GH_T0 + 60 * i for i in range(n0 + 1)]
    edited = [0] * (n0 + 1)
    for generation, (touch, add) in enumerate(events, start=1):
        day = GH_T0 + 86400 * generation
        n = len(updated) - 1
        for i in range(1, min(touch, n) + 1):
            updated[i] = day + 60 * i
            edited[i] = generation
        for i in range(n + 1, n + add + 1):
            updated.append(day + 60 * i)
            edited.append(0)
    newest = max(updated[1:], default=GH_T0)
    return updated, edited, newest


def gh_repo(code, k, org, newest):
    name = gh_repo_name(code, k)
    return {"id": (100000 if code == 0 else 200000) + k, "name": name, "full_name": f"{org}/{name}",
            "owner": {"login": org}, "private": False, "updated_at": gh_time(newest)}


def gh_issue(code, k, repo, number, updated, edited):
    title = f'修复 "bug" {number} of {repo}' if number % 4 == 0 else f"Issue {number} of {repo}"
    if edited:
        title += f" (edited g{edited})"
    if number % 2 == 0:
        labels = [{"name": "bug"}, {"name": "p1"}]
    elif number % 5 == 0:
        labels = [{"name": "docs"}]
    else:
        labels = []
    return {"id": (code * 10000 + k) * 1000000 + number, "number": number, "title": title,
            "state": "open" if number % 3 else "closed", "labels": labels,
            "user": {"login": f"user-{number % 7}"}, "comments": number % 4, "updated_at": gh_time(updated)}


def gh_effective(config):
    """The config as /gh/_admin/config answers it (rate_status filled in from rate_style)."""
    answer = dict(config)
    if answer["rate_status"] is None:
        answer["rate_status"] = 429 if answer["rate_style"] == "ietf" else 403
    return answer


def gh_int(query, name, default):
    text = query.get(name)
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise GhError(422, GH_INVALID)


def gh_json_object(body):
    """The admin endpoints' optional JSON object body ({} when empty)."""
    if not body.strip():
        return {}
    try:
        value = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise BadRequest(f"body is not JSON: {e}")
    if not isinstance(value, dict):
        raise BadRequest("body must be a JSON object")
    return value


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


# --------------------------------------------------------------------------- helpers

class BadRequest(Exception):
    pass


class ClientGone(Exception):
    """The client closed the connection; do not answer."""


def int_arg(query, name, default, low=None, high=None):
    text = query.get(name)
    if text is None or text == "":
        return default
    try:
        value = int(text)
    except ValueError:
        raise BadRequest(f"'{name}' must be a whole number, got '{text}'")
    if (low is not None and value < low) or (high is not None and value > high):
        raise BadRequest(f"'{name}' must be in {low}...{high}, got {value}")
    return value


def float_arg(query, name, default, low=0.0, high=120.0):
    text = query.get(name)
    if text is None or text == "":
        return default
    try:
        value = float(text)
    except ValueError:
        raise BadRequest(f"'{name}' must be a number, got '{text}'")
    if not (low <= value <= high):
        raise BadRequest(f"'{name}' must be in {low}...{high}, got {value}")
    return value


def encode_cursor(offset):
    return base64.urlsafe_b64encode(f"off:{offset}".encode()).decode().rstrip("=")


def decode_cursor(token):
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        if text.startswith("off:"):
            value = int(text[4:])
            if value >= 0:
                return value
    except (binascii.Error, ValueError, UnicodeDecodeError):
        pass
    raise BadRequest(f"invalid cursor '{token}'")


REASONS = {s.value: s.phrase for s in HTTPStatus}
REASONS.setdefault(429, "Too Many Requests")


SIGNING_HASHES = {"hmac-sha1": hashlib.sha1, "hmac-sha256": hashlib.sha256, "hmac-sha512": hashlib.sha512}
PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def canonical_query(raw):
    """Pairs percent-encoded as RFC 3986 (unreserved kept), sorted by name then value, joined by &."""
    pairs = [(quote(n, safe=""), quote(v, safe="")) for n, v in parse_qsl(raw, keep_blank_values=True)]
    return "&".join(f"{n}={v}" for n, v in sorted(pairs))


def signing_message(template, method, raw_path, raw_query, body, headers, timestamp):
    """Reform's `sign` message, rendered independently of the engine (see docs/pipelines.md, services and interceptors)."""
    def fill(match):
        text = match.group(0)
        if text in ("{{", "}}"):
            return text[0]
        name = match.group(1)
        values = {"method": method.upper(), "path": raw_path, "query": canonical_query(raw_query),
                  "body": body.decode("utf-8", errors="replace"), "body_sha256": hashlib.sha256(body).hexdigest(),
                  "timestamp": timestamp}
        if name.startswith("header:"):
            return headers.get(name[7:].lower(), "")
        return values[name]
    return PLACEHOLDER.sub(fill, template)


# --------------------------------------------------------------------------- handler

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "reform-test-server"
    sys_version = ""

    # ---- connection lifecycle

    def setup(self):
        if hasattr(self.request, "do_handshake"):
            # TLS (--tls-cert): the handshake, on this connection's thread, within 10 s.
            self.request.settimeout(10)
            self.request.do_handshake()
            self.request.settimeout(None)
        super().setup()
        self.conn_id = next(self.server.state.connections)
        self.aborted = False

    def handle(self):
        self.close_connection = True
        try:
            self.handle_one_request()
            while not self.close_connection:
                self.handle_one_request()
        except (ConnectionError, TimeoutError, BrokenPipeError):
            pass
        except OSError:
            if not self.aborted:
                raise

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format, *args):  # noqa: A002 - BaseHTTPRequestHandler's signature
        if self.server.verbose:
            sys.stderr.write(f"[conn {getattr(self, 'conn_id', '?')}] {format % args}\n")

    # ---- request parsing (fast path; no email.parser, no reverse DNS)

    def handle_one_request(self):
        self.entry = None
        self.h = {}
        rfile = self.rfile
        line = rfile.readline(65537)
        while line in (b"\r\n", b"\n"):  # tolerate stray CRLF between requests
            line = rfile.readline(65537)
        if not line:
            self.close_connection = True
            return
        if len(line) > 65536:
            return self.fail_fast(414, "request line too long")
        parts = line.decode("latin-1").rstrip("\r\n").split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            return self.fail_fast(400, f"bad request line {line[:80]!r}")
        method, target, version = parts
        self.command, self.path, self.request_version = method, target, version
        self.requestline = line.decode("latin-1").rstrip("\r\n")
        headers = {}
        raw_headers = []
        while True:
            h = rfile.readline(65537)
            if h in (b"\r\n", b"\n", b""):
                break
            if len(raw_headers) > 200:
                return self.fail_fast(431, "too many headers")
            name, sep, value = h.decode("latin-1").partition(":")
            if not sep:
                return self.fail_fast(400, f"bad header line {h[:80]!r}")
            name = name.strip().lower()
            value = value.strip()
            raw_headers.append((name, value))
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        self.h = headers
        conn = headers.get("connection", "").lower()
        if version == "HTTP/1.1":
            self.close_connection = "close" in conn
        else:
            self.close_connection = "keep-alive" not in conn
        if headers.get("expect", "").lower() == "100-continue" and version == "HTTP/1.1":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        body = self.read_body(headers)
        if body is None:
            return
        self.body = body

        if method == "CONNECT":
            return self.tunnel(target)

        path, _, qs = target.partition("?")
        if path.startswith("http://") or path.startswith("https://"):
            path = "/" + path.split("/", 3)[3] if path.count("/") >= 3 else "/"
        path = unquote(path)
        query = dict(parse_qsl(qs, keep_blank_values=True)) if qs else {}
        self.req_path, self.query = path, query
        if path not in ("/_log", "/_reset"):
            self.entry = self.server.state.record(method, path, query, self.conn_id)
        self.log_message('"%s"', self.requestline)
        try:
            self.dispatch(method, path, query)
        except BadRequest as e:
            self.json(400, {"error": str(e)})
        except ClientGone:
            if self.entry is not None:
                self.entry["client_closed"] = True
            self.close_connection = True
        except (ConnectionError, BrokenPipeError):
            if self.entry is not None:
                self.entry["client_closed"] = True
            self.close_connection = True
        except Exception as e:  # a bug in an endpoint: answer 500 and keep going
            if not self.server.quiet:
                traceback.print_exc()
            if not self.aborted:
                self.json(500, {"error": f"server error: {type(e).__name__}: {e}"})
                self.close_connection = True

    # ---- a forward proxy: CONNECT tunnels (AsyncHTTPClient tunnels http and https alike)

    def tunnel(self, target):
        """CONNECT host:port: a TCP tunnel (https through a proxy), logged with the target as its path."""
        self.entry = self.server.state.record("CONNECT", target, {}, self.conn_id)
        self.close_connection = True
        host, _, port = target.rpartition(":")
        try:
            upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
        except (OSError, ValueError) as e:
            return self.json(502, {"error": f"cannot reach {target}: {e}"})
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        upstream.settimeout(None)
        client = self.connection
        pairs = {client: upstream, upstream: client}
        try:
            while True:
                ready, _, _ = select.select(list(pairs), [], [], 30)
                if not ready:
                    break
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    pairs[sock].sendall(data)
        except OSError:
            pass
        finally:
            upstream.close()
            self.entry["completed"] = True

    def read_body(self, headers):
        te = headers.get("transfer-encoding", "").lower()
        if "chunked" in te:
            chunks = []
            size_total = 0
            while True:
                size_line = self.rfile.readline(1024)
                if not size_line:
                    self.close_connection = True
                    return None
                try:
                    size = int(size_line.split(b";")[0].strip(), 16)
                except ValueError:
                    self.fail_fast(400, "bad chunk size")
                    return None
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                size_total += size
                if size_total > MAX_BODY:
                    self.fail_fast(413, "body too large")
                    return None
                chunks.append(self.rfile.read(size))
                self.rfile.readline(3)
            return b"".join(chunks)
        length = headers.get("content-length")
        if not length:
            return b""
        try:
            n = int(length)
        except ValueError:
            self.fail_fast(400, "bad Content-Length")
            return None
        if n < 0 or n > MAX_BODY:
            self.fail_fast(413, "body too large")
            return None
        data = self.rfile.read(n) if n else b""
        if len(data) < n:
            self.close_connection = True
            return None
        return data

    def fail_fast(self, status, message):
        self.close_connection = True
        self.json(status, {"error": message})

    # ---- responses

    def head_bytes(self, status, headers, length):
        lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"]
        for name, value in headers:
            lines.append(f"{name}: {value}")
        if length is not None:
            lines.append(f"Content-Length: {length}")
        if self.close_connection:
            lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")

    def send(self, status, body=b"", content_type="application/json", headers=()):
        all_headers = list(headers)
        if content_type is not None and (body or status not in (204, 304)):
            all_headers.insert(0, ("Content-Type", content_type))
        no_body = status in (204, 304) or 100 <= status < 200
        data = self.head_bytes(status, all_headers, None if no_body else len(body))
        if not no_body:
            data += body
        self.wfile.write(data)
        self.done(status)

    def json(self, status, value, headers=()):
        self.send(status, dumps(value), headers=headers)

    def done(self, status):
        if self.entry is not None:
            self.entry["status"] = status
            self.entry["completed"] = True

    def host(self):
        return self.h.get("host") or f"{self.server.server_address[0]}:{self.server.server_address[1]}"

    def wait_watching(self, seconds):
        """Sleeps `seconds` while watching the socket; raises ClientGone if the client closes."""
        sock = self.connection
        deadline = time.monotonic() + seconds
        poller = select.poll()
        poller.register(sock, POLL_EVENTS)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if not poller.poll(max(1, int(remaining * 1000))):
                continue
            try:
                data = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                raise ClientGone()
            if data == b"":
                raise ClientGone()
            # The client sent more (a pipelined request): it is still there. Check again shortly.
            time.sleep(min(remaining, 0.05))

    def abort_with_rst(self):
        """Closes the connection with a TCP RST (SO_LINGER on, timeout 0)."""
        self.aborted = True
        self.close_connection = True
        sock = self.connection
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        # The makefile() readers/writers hold references; the fd closes only when all are closed.
        for f in (self.wfile, self.rfile):
            try:
                f.close()
            except OSError:
                pass
        sock.close()

    # ---- routing

    def dispatch(self, method, path, query):
        route = ROUTES.get(path)  # exact paths first: one dict lookup, as before
        args = ()
        if route is None:
            for prefix, pattern, methods_fn in PATTERN_ROUTES:
                if path.startswith(prefix):
                    m = pattern.fullmatch(path)
                    if m:
                        route, args = methods_fn, m.groups()
                        break
            if route is None:
                if path.startswith("/gh/"):
                    return self.json(404, GH_NOT_FOUND)
                return self.json(404, {"error": f"no endpoint {path}"})
        methods, fn = route
        if methods is not None and method not in methods:
            return self.json(405, {"error": f"{method} is not allowed on {path}; use {' or '.join(methods)}"},
                             headers=[("Allow", ", ".join(methods))])
        fn(self, query, *args)

    # ---- paged endpoints

    def items_for(self, query):
        return self.server.state.dataset(int_arg(query, "total", DEFAULT_TOTAL, 0, 100000))

    def ep_paged_page(self, q):
        items = self.items_for(q)
        page = int_arg(q, "page", 1, 1)
        size = int_arg(q, "per_page", 10, 1, 10000)
        chunk = items[(page - 1) * size: page * size]
        self.json(200, {"data": {"items": chunk, "total": len(items), "page": page}})

    def ep_paged_offset(self, q):
        items = self.items_for(q)
        offset = int_arg(q, "offset", 0, 0)
        limit = int_arg(q, "limit", 10, 1, 10000)
        self.json(200, {"items": items[offset: offset + limit], "total": len(items)})

    def cursor_page(self, q):
        items = self.items_for(q)
        cursor = q.get("cursor")
        offset = decode_cursor(cursor) if cursor else 0
        limit = int_arg(q, "limit", 10, 1, 10000)
        end = offset + limit
        return items[offset:end], (encode_cursor(end) if end < len(items) else None)

    def ep_paged_cursor(self, q):
        chunk, token = self.cursor_page(q)
        self.json(200, {"items": chunk, "next_cursor": token})

    def ep_paged_cursor_header(self, q):
        chunk, token = self.cursor_page(q)
        self.json(200, chunk, headers=[("X-Next-Cursor", token)] if token else [])

    def page_and_next(self, q, path):
        items = self.items_for(q)
        page = int_arg(q, "page", 1, 1)
        size = int_arg(q, "per_page", 10, 1, 10000)
        chunk = items[(page - 1) * size: page * size]
        extra = f"&total={q['total']}" if "total" in q else ""
        base = f"{self.server.scheme}://{self.host()}{path}"
        nxt = f"{base}?page={page + 1}&per_page={size}{extra}" if page * size < len(items) else None
        first = f"{base}?page=1&per_page={size}{extra}"
        return chunk, nxt, first

    def ep_paged_link(self, q):
        chunk, nxt, first = self.page_and_next(q, "/paged/link")
        links = ([f'<{nxt}>; rel="next"'] if nxt else []) + [f'<{first}>; rel="first"']
        self.json(200, chunk, headers=[("Link", ", ".join(links))])

    def ep_paged_next_url(self, q):
        chunk, nxt, _ = self.page_and_next(q, "/paged/next-url")
        self.json(200, {"results": chunk, "next": nxt})

    def ep_paged_loop(self, q):
        self.json(200, {"items": [self.server.state.dataset(DEFAULT_TOTAL)[0]], "next_cursor": "same"})

    def ep_paged_empty(self, q):
        self.json(200, {"items": []})

    def graphql_rate(self, q):
        """Counts a /graphql request against key=K's budget=N per window=S seconds (a query with
        no budget is not counted): (limit, remaining after it, reset as ISO 8601) or None. With
        refusals=R the window also ends after R refused requests, as if its time had passed (a
        client waiting on a clock of its own is then let in)."""
        if "budget" not in q:
            return None
        budget = int_arg(q, "budget", 5000, 0)
        window = float(q.get("window", "60"))
        refusals = int_arg(q, "refusals", 0, 0)
        key = q.get("key", "default")
        now = time.time()
        with self.server.state.lock:
            start, used, refused = self.server.state.graphql_windows.get(key, (now, 0, 0))
            if now - start >= window or (refusals and refused >= refusals):
                start, used, refused = now, 0, 0
            used += 1
            if used > budget:
                refused += 1
            self.server.state.graphql_windows[key] = (start, used, refused)
        reset = datetime.datetime.fromtimestamp(start + window, datetime.timezone.utc)
        return budget, budget - used, reset.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def ep_graphql(self, q):
        """A GitHub-like GraphQL endpoint for one query shape: a repository's issues as a
        connection. POST {"query": "...", "variables": {"owner", "repo", "first", "after"}}; the
        query must select repository(...) { issues(...) { nodes ... pageInfo ... } }. Items are
        the dataset's (total=N in the query string, default 25); cursors are opaque base64 of the
        last id. Errors come as GraphQL does: status 200 with an "errors" array (repo "missing":
        NOT_FOUND with data.repository null; first not an Int, a bad cursor or a bad body: errors
        with no data). With budget=N&window=S&key=K, each request spends one of N per window of S
        seconds: past it the answer is GitHub's RATE_LIMITED error (status 200, no data, no rate
        headers); a query that selects rateLimit gets data.rateLimit {limit, remaining, resetAt}.
        refusals=R ends a window after R refusals too."""
        rate = self.graphql_rate(q)
        if rate is not None and rate[1] < 0:
            return self.json(200, {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}]})
        try:
            request = json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            return self.json(400, {"errors": [{"message": f"Problems parsing JSON: {error}"}]})
        if not isinstance(request, dict) or not isinstance(request.get("query"), str):
            return self.json(200, {"errors": [{"message": "A query attribute must be specified and must be a string."}]})
        variables = request.get("variables") or {}
        query = request["query"]
        if not isinstance(variables, dict):
            return self.json(200, {"errors": [{"message": "Variables are invalid JSON."}]})
        if "repository" not in query or "issues" not in query:
            return self.json(200, {"errors": [{"message": "This endpoint answers repository { issues } queries only",
                                               "locations": [{"line": 1, "column": 1}]}]})
        first = variables.get("first", 10)
        if not is_int(first) or not 1 <= first <= 100:
            return self.json(200, {"errors": [{
                "message": f"Variable $first of type Int! was provided invalid value {json.dumps(first)}",
                "extensions": {"code": "argumentLiteralsIncompatible"}}]})
        owner, repo = variables.get("owner"), variables.get("repo")
        if repo == "missing":
            return self.json(200, {"data": {"repository": None}, "errors": [{
                "type": "NOT_FOUND", "path": ["repository"], "locations": [{"line": 2, "column": 3}],
                "message": f"Could not resolve to a Repository with the name '{owner}/{repo}'."}]})
        items = self.items_for(q)
        after = variables.get("after")
        start = 0
        if after is not None:
            try:
                start = int(base64.b64decode(after, validate=True).decode("ascii").removeprefix("cursor:"))
            except (binascii.Error, ValueError, UnicodeDecodeError, AttributeError, TypeError):
                return self.json(200, {"errors": [{"message": f"`{after}` does not appear to be a valid cursor.",
                                                   "path": ["repository", "issues"]}]})
        chunk = items[start:start + first]
        end = start + len(chunk)
        cursor = base64.b64encode(f"cursor:{end}".encode("ascii")).decode("ascii") if chunk else None
        data = {"repository": {"issues": {
            "totalCount": len(items),
            "nodes": [{"number": item["id"], "title": item["name"], "repository": f"{owner}/{repo}"} for item in chunk],
            "pageInfo": {"endCursor": cursor, "hasNextPage": end < len(items)},
        }}}
        if rate is not None and "rateLimit" in query:
            data["rateLimit"] = {"limit": rate[0], "remaining": rate[1], "resetAt": rate[2]}
        self.json(200, {"data": data})

    # ---- asynchronous export jobs (Salesforce Bulk, Shopify bulk operations, report APIs)

    JOB_TOKEN = "job-token"

    def job_auth(self):
        return self.h.get("authorization") == f"Bearer {self.JOB_TOKEN}"

    def ep_job_create(self, q):
        """POST /jobs with a JSON body {"rows": 25, "parts": 2, "polls": 2, "fail": false,
        "files": "same" | "other" | "redirect" | "none", "format": "ndjson" | "csv" | "json" (one document, rows under data.items), "damage": null |
        "truncate" | "badrow" | "empty" | "echo" (CSV notes quote the Authorization header) |
        "longline" (one 1.1 MB NDJSON line quoting it across byte 1,048,576), "trickle":
        seconds between five pieces of each file}: 202 {"id": "job-N", "status": "queued"}. Every job request needs
        Authorization: Bearer job-token."""
        if not self.job_auth():
            return self.json(401, {"error": "bearer token required"})
        spec = gh_json_object(self.body)
        rows, parts, polls = spec.get("rows", 25), spec.get("parts", 2), spec.get("polls", 2)
        if not (is_int(rows) and is_int(parts) and is_int(polls) and rows >= 0 and parts >= 1 and polls >= 0):
            raise BadRequest("rows, parts and polls are whole numbers (parts at least 1)")
        state = self.server.state
        with state.lock:
            job_id = f"job-{len(state.jobs) + 1}"
            state.jobs[job_id] = {"rows": rows, "parts": parts, "polls": polls, "fail": bool(spec.get("fail")),
                                  "files": spec.get("files", "same"), "polled": 0,
                                  "format": spec.get("format", "ndjson"), "damage": spec.get("damage"),
                                  "trickle": spec.get("trickle")}
        self.json(202, {"id": job_id, "status": "queued"})

    def ep_job_status(self, q, job_id):
        """DELETE /jobs/ID cancels the job (later polls answer "cancelled").
        GET /jobs/ID: {"id", "status": "running"} until it has been polled `polls` times, then
        {"status": "completed", "files": [{"url": ...}]} (same: /jobs/ID/files/N; other: an
        absolute http://localhost:PORT/... URL with a signature, another origin; none: []) or
        {"status": "failed", "error": {"message": ...}}."""
        if not self.job_auth():
            return self.json(401, {"error": "bearer token required"})
        state = self.server.state
        with state.lock:
            job = state.jobs.get(job_id)
            if job is None:
                return self.json(404, {"error": f"no job {job_id}"})
            if self.command == "DELETE":
                job["cancelled"] = True
                return self.json(200, {"id": job_id, "status": "cancelled"})
            if job.get("cancelled"):
                return self.json(200, {"id": job_id, "status": "cancelled"})
            job["polled"] += 1
            polled = job["polled"]
        if polled <= job["polls"]:
            return self.json(200, {"id": job_id, "status": "running", "progress": polled})
        if job["fail"]:
            return self.json(200, {"id": job_id, "status": "failed", "error": {"message": "the export query timed out"}})
        port = self.host().rsplit(":", 1)[-1]
        if job["files"] == "none":
            files = []
        elif job["files"] == "other":
            files = [{"url": f"{self.server.scheme}://localhost:{port}/jobs/{job_id}/files/{n}?signature=s{n}"}
                     for n in range(job["parts"])]
        elif job["files"] == "redirect":
            files = [{"url": f"/jobs/{job_id}/redirect/{n}"} for n in range(job["parts"])]
        else:
            files = [{"url": f"/jobs/{job_id}/files/{n}"} for n in range(job["parts"])]
        self.json(200, {"id": job_id, "status": "completed", "files": files})

    def ep_job_redirect(self, q, job_id, part):
        """GET /jobs/ID/redirect/N: 302 to the file's pre-signed URL on another origin (as an
        export API hands its file over to storage)."""
        port = self.host().rsplit(":", 1)[-1]
        url = f"{self.server.scheme}://localhost:{port}/jobs/{job_id}/files/{part}?signature=s{part}"
        self.send(302, b"", content_type=None, headers=[("Location", url)])

    def ep_job_file(self, q, job_id, part):
        """GET /jobs/ID/files/N: part N of the job's rows as a gzip file of NDJSON
        (application/gzip). With ?signature= (a pre-signed URL) a request that also carries
        Authorization is refused 400, as storage services do; without it the bearer is needed."""
        if "signature" in q:
            if "authorization" in self.h:
                return self.json(400, {"error": "Only one auth mechanism allowed; the signature is in the URL"})
        elif not self.job_auth():
            return self.json(401, {"error": "bearer token required"})
        with self.server.state.lock:
            job = self.server.state.jobs.get(job_id)
        part = int(part)
        if job is None or part >= job["parts"]:
            return self.json(404, {"error": f"no file {part} of {job_id}"})
        key = ("job-file", job["rows"], job["parts"], part, job["format"], job["damage"])
        with self.server.state.lock:
            body = self.server.state.bench_cache.get(key)
        if body is None:
            body = self.job_file(job, part)
            if job["rows"] >= 100000:  # made once for a benchmark's repeated runs
                with self.server.state.lock:
                    self.server.state.bench_cache[key] = body
        if job["trickle"]:
            # Five pieces, `trickle` seconds apart: a download slower in all than any one wait.
            self.wfile.write(self.head_bytes(200, [("Content-Type", "application/gzip")], len(body)))
            step = -(-len(body) // 5)
            for start in range(0, len(body), step):
                self.wfile.write(body[start:start + step])
                self.wfile.flush()
                if start + step < len(body):
                    time.sleep(job["trickle"])
            return self.done(200)
        self.send(200, body, content_type="application/gzip")

    def job_file(self, job, part):
        """Part `part` of `job`'s rows as gzip-compressed NDJSON or CSV, damaged as it asks."""
        items = self.server.state.dataset(job["rows"])
        size = -(-len(items) // job["parts"]) if items else 0
        chunk = items[part * size:(part + 1) * size]
        if job["format"] == "csv":
            # Quoted commas and quotes, and a field across two lines, as spreadsheets export them.
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\r\n")
            writer.writerow(["id", "name", "price", "note"])
            for item in chunk:
                i = item["id"]
                note = f'says "hi", {i}' if i % 4 == 0 else (f"line one\nline {i}" if i % 9 == 0 else "")
                if job["damage"] == "echo" and i % 100 == 0:
                    note = "sent with " + self.h.get("authorization", "")  # a secret echoed back
                writer.writerow([i, item["name"], item["price"], note])
            if job["damage"] == "badrow" and part == 0:
                out.write("999,only two fields\r\n")
            lines = out.getvalue()
        elif job["format"] == "json":
            # One JSON document holding the rows under data.items, between other members.
            lines = json.dumps({"meta": {"part": part, "note": "a } ] in a string"},
                                "data": {"count": len(chunk), "items": chunk}, "next": None}, ensure_ascii=False)
        elif job["damage"] == "longline":
            # One NDJSON line of about 1.1 MB that echoes the Authorization header so that the
            # token spans byte 1,048,576 (where a 1 MiB block ends), with no break around it.
            head = '{"id": 1, "note": "'
            sent = self.h.get("authorization", "")
            filler = "x" * (1048576 - 6 - len(head) - (len(sent) - len(self.JOB_TOKEN)))
            lines = head + filler + sent + " " + "y" * 50000 + '"}\n'
        else:
            lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in chunk)
        body = gzip.compress(lines.encode("utf-8"))
        if job["damage"] == "truncate" and part == job["parts"] - 1:
            body = body[:len(body) // 2]
        if job["damage"] == "empty":
            body = b""  # an empty file, still labelled gzip
        return body

    # ---- XML: an RSS feed, a SOAP envelope, a broken document and an entity bomb

    def ep_xml(self, q, kind):
        """GET /xml/rss?page=P&per_page=S (RSS 2.0 of the items: CDATA, &amp;, a dc: namespace,
        attributes), /xml/soap (a SOAP 1.1 envelope of orders, namespaced, attributes and
        repeated children), /xml/bad (an element that never closes), /xml/bomb (a billion-laughs
        DTD whose entity a record uses)."""
        if kind == "rss":
            chunk, _, _ = self.page_and_next(q, "/xml/rss")
            items = "".join(
                f"""<item><title>{html.escape(item["name"])}</title><link>http://example.test/items/{item["id"]}</link>
<description><![CDATA[<p>Price {item["price"]} &amp; more</p>]]></description>
<dc:creator>R &amp; D</dc:creator><guid isPermaLink="false">item-{item["id"]}</guid>
<enclosure url="http://example.test/{item["id"]}.png" length="{item["id"] * 100}" type="image/png"/></item>
""" for item in chunk)
            body = f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>Items</title>
{items}</channel></rss>
"""
        elif kind == "soap":
            body = """<?xml version="1.0"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="urn:orders">
  <soap:Body>
    <m:GetOrdersResponse>
      <m:Order id="A-1" status="open"><m:Customer>Ann</m:Customer><m:Line sku="x">2</m:Line><m:Line sku="y">1</m:Line></m:Order>
      <m:Order id="A-2" status="closed"><m:Customer>Bo</m:Customer><m:Line sku="z">5</m:Line><m:Note/></m:Order>
    </m:GetOrdersResponse>
  </soap:Body>
</soap:Envelope>
"""
        elif kind == "bad":
            body = '<?xml version="1.0"?>\n<list>\n  <item><id>1</id></item>\n  <item><id>2</id>\n</list>\n'
        elif kind == "bomb":
            lols = "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10))
            body = f'<?xml version="1.0"?>\n<!DOCTYPE list [<!ENTITY lol0 "lol">{lols}]>\n<list><item><id>1</id><v>&lol9;</v></item></list>\n'
        else:
            return self.json(404, {"error": f"no /xml/{kind}"})
        self.send(200, body.encode("utf-8"), content_type="application/xml; charset=utf-8")

    def ep_csv(self, q):
        """Items by page as CSV (RFC 4180, CRLF): id,name,price,tags,note; every 7th note holds a
        comma, quotes and a line break; bad=1 ends with a quoted field that never closes;
        delimiter=; separates with semicolons (prices then with a decimal comma, as European
        spreadsheets write them); header=0 leaves the header row out."""
        chunk, _, _ = self.page_and_next(q, "/csv")
        sep = q.get("delimiter", ",")
        if len(sep) != 1 or sep in '"\r\n':
            raise BadRequest("delimiter is one character, not a quote or a line break")

        def cell(text):
            return '"' + text.replace('"', '""') + '"' if any(c in text for c in sep + ',"\r\n') else text

        rows = [] if q.get("header") == "0" else [sep.join(["id", "name", "price", "tags", "note"])]
        for item in chunk:
            note = 'a, "b"\nc' if item["id"] % 7 == 0 else ""
            price = str(item["price"]).replace(".", ",") if sep == ";" else str(item["price"])
            rows.append(sep.join([str(item["id"]), cell(item["name"]), cell(price), cell(";".join(item["tags"])), cell(note)]))
        if q.get("bad") == "1":
            rows.append('99,"never closed,1.0,t,')
        self.send(200, ("\r\n".join(rows) + "\r\n").encode("utf-8"), content_type="text/csv; charset=utf-8")

    def ep_ndjson(self, q):
        """Items by page as NDJSON, one record per line."""
        chunk, _, _ = self.page_and_next(q, "/ndjson")
        body = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in chunk)
        self.send(200, body.encode("utf-8"), content_type="application/x-ndjson")

    def ep_compressed(self, q):
        """Items by page (as /paged/page's {"data": {"items": ...}}) compressed as `as` says:
        gzip, deflate (zlib-wrapped), raw-deflate (deflate without its zlib header), two-members
        (two gzip members, the body split between them), all with Content-Encoding; gzip-file
        (NDJSON as a gzip file: Content-Type application/gzip, no Content-Encoding); truncated
        (gzip cut in half); br (a Content-Encoding nobody asked for); bomb (gzip of `size` zero
        bytes). An encoding the request's Accept-Encoding does not name answers 406."""
        how = q.get("as", "gzip")
        accepted = [part.split(";")[0].strip().lower() for part in self.h.get("accept-encoding", "").split(",")]
        wanted = {"gzip": "gzip", "two-members": "gzip", "truncated": "gzip", "bomb": "gzip",
                  "deflate": "deflate", "raw-deflate": "deflate"}.get(how)
        if wanted and wanted not in accepted:
            return self.json(406, {"error": f"the request accepts {self.h.get('accept-encoding')!r}, not {wanted}"})
        items = self.items_for(q)
        page = int_arg(q, "page", 1, 1)
        size = int_arg(q, "per_page", 10, 1, 10000)
        chunk = items[(page - 1) * size: page * size]
        plain = dumps({"data": {"items": chunk, "total": len(items), "page": page}})
        if how == "gzip":
            body, encoding = gzip.compress(plain), "gzip"
        elif how == "two-members":
            half = len(plain) // 2
            body, encoding = gzip.compress(plain[:half]) + gzip.compress(plain[half:]), "gzip"
        elif how == "deflate":
            body, encoding = zlib.compress(plain), "deflate"
        elif how == "raw-deflate":
            packer = zlib.compressobj(wbits=-15)
            body, encoding = packer.compress(plain) + packer.flush(), "deflate"
        elif how == "truncated":
            whole = gzip.compress(plain)
            body, encoding = whole[: len(whole) // 2], "gzip"
        elif how == "br":
            body, encoding = b"\x1b\x00\x00", "br"
        elif how == "bomb":
            body, encoding = gzip.compress(b"\0" * int_arg(q, "size", 1 << 20, 1, 1 << 30)), "gzip"
        elif how == "gzip-file":
            lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in chunk)
            return self.send(200, gzip.compress(lines.encode("utf-8")), content_type="application/gzip")
        else:
            raise BadRequest(f"unknown as={how}")
        self.send(200, body, headers=[("Content-Encoding", encoding)])

    def ep_openapi(self, q):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "openapi.json"), encoding="utf-8") as f:
            document = json.load(f)
        document["servers"] = [{"url": f"{self.server.scheme}://{self.host()}", "description": "this server"}]
        self.json(200, document)

    # ---- timing and failures

    def ep_slow(self, q):
        delay = float_arg(q, "delay", 1.0, high=1800.0)
        tag = q.get("tag", "")
        self.wait_watching(delay)
        self.json(200, {"tag": tag, "delay": delay})

    def ep_flaky(self, q):
        key = q.get("key", "default")
        fail = int_arg(q, "fail", 1, 0)
        status = int_arg(q, "status", 503, 200, 599)
        n = self.server.state.count(("flaky", key))
        if n <= fail:
            return self.json(status, {"error": f"flaky failure {n} of {fail}", "attempt": n})
        self.json(200, {"items": self.server.state.dataset(DEFAULT_TOTAL)[:5], "attempt": n})

    def ep_ratelimited(self, q):
        key = q.get("key", "default")
        fail = int_arg(q, "fail", 1, 0)
        after = int_arg(q, "retry_after", 1, 0, 3600)
        n = self.server.state.count(("ratelimited", key))
        if n <= fail:
            if q.get("date") == "1":
                value = email.utils.formatdate(time.time() + after, usegmt=True)
            else:
                value = str(after)
            return self.json(429, {"error": "rate limited", "attempt": n}, headers=[("Retry-After", value)])
        self.json(200, {"items": self.server.state.dataset(DEFAULT_TOTAL)[:5], "attempt": n})

    def ep_reset(self, q):
        key = q.get("key", "default")
        fail = int_arg(q, "fail", 1, 0)
        n = self.server.state.count(("reset", key))
        body = dumps({"items": self.server.state.dataset(DEFAULT_TOTAL)[:5]})
        if n > fail:
            return self.send(200, body)
        head = self.head_bytes(200, [("Content-Type", "application/json")], len(body) + 100)
        self.wfile.write(head + body[: len(body) // 2])
        if self.entry is not None:
            self.entry["status"] = 200  # headers went out; the entry stays completed: false
        time.sleep(0.05)  # let the partial body reach the client before the RST
        self.abort_with_rst()

    def ep_truncated(self, q):
        self.send(200, b'{"items": [{"id": 1, "na')

    def ep_malformed(self, q):
        self.send(200, b'{"items": [1, 2,,]}')

    def ep_html(self, q):
        self.send(200, b"<html>oops</html>", content_type="text/html")

    def ep_no_content(self, q):
        self.send(204, b"", content_type=None)

    def ep_status(self, q):
        code = int_arg(q, "code", 200, 200, 599)
        self.json(code, {"error": f"status {code}"}, headers=[("X-Request-Id", "abc")])

    def ep_stall(self, q):
        after = int_arg(q, "after", 0, 0, 1 << 20)
        seconds = float_arg(q, "seconds", 30.0, 0.0, 300.0)
        fill = b'{"pad": "' + b"x" * (after + 64) + b'"}'
        self.wfile.write(self.head_bytes(200, [("Content-Type", "application/json")], len(fill)) + fill[:after])
        self.close_connection = True
        if self.entry is not None:
            self.entry["status"] = 200
        self.wait_watching(seconds)  # ClientGone if the client gives up first
        # Stalled for the whole time: hang up without sending the rest.

    def ep_echo(self, q):
        self.json(200, {
            "method": self.command, "path": self.req_path, "query": q, "headers": self.h,
            "body": self.body.decode("utf-8", errors="replace"),
        })

    # ---- auth

    def basic_credentials(self):
        auth = self.h.get("authorization", "")
        scheme, _, value = auth.partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            user, sep, password = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
        except (binascii.Error, ValueError, UnicodeDecodeError):
            return None
        return (user, password) if sep else None

    def ep_auth_basic(self, q):
        if self.basic_credentials() != (BASIC_USER, BASIC_PASS):
            return self.json(401, {"error": "unauthorized"}, headers=[("WWW-Authenticate", 'Basic realm="reform"')])
        self.json(200, {"user": BASIC_USER, "items": self.server.state.dataset(DEFAULT_TOTAL)[:3]})

    def ep_auth_key(self, q):
        if self.h.get("x-api-key") != API_KEY and q.get("api_key") != API_KEY:
            return self.json(401, {"error": "unauthorized: send X-API-Key or ?api_key="})
        self.json(200, {"items": self.server.state.dataset(DEFAULT_TOTAL)[:3]})

    def ep_oauth_token(self, q):
        delay = float_arg(q, "delay", 0.0)
        form = dict(parse_qsl(self.body.decode("utf-8", errors="replace"), keep_blank_values=True))
        grant = form.get("grant_type")
        if grant == "client_credentials":
            creds = (form.get("client_id"), form.get("client_secret"))
            if creds == (None, None):
                creds = self.basic_credentials()
            if creds != (CLIENT_ID, CLIENT_SECRET):
                return self.json(401, {"error": "invalid_client"}, headers=[("WWW-Authenticate", 'Basic realm="reform"')])
        elif grant == "refresh_token":
            if form.get("refresh_token") != REFRESH_TOKEN:
                return self.json(400, {"error": "invalid_grant"})
        else:
            return self.json(400, {"error": "unsupported_grant_type"})
        if delay:
            self.wait_watching(delay)
        token = self.server.state.issue_token()
        self.json(200, {"access_token": token, "token_type": "Bearer",
                        "expires_in": int_arg(q, "expires_in", 3600, 0), "refresh_token": REFRESH_TOKEN},
                  headers=[("Cache-Control", "no-store")])

    def ep_oauth_items(self, q):
        auth = self.h.get("authorization", "")
        scheme, _, token = auth.partition(" ")
        if scheme.lower() != "bearer" or not self.server.state.token_ok(token.strip()):
            return self.json(401, {"error": "invalid_token"},
                             headers=[("WWW-Authenticate", 'Bearer error="invalid_token"')])
        items = self.items_for(q)
        page = int_arg(q, "page", 1, 1)
        size = int_arg(q, "per_page", 10, 1, 10000)
        self.json(200, {"items": items[(page - 1) * size: page * size], "page": page, "total": len(items)})

    # ---- request signing

    def ep_admin_signing(self, q):
        try:
            config = json.loads(self.body.decode("utf-8"))
            if config["algorithm"] not in SIGNING_HASHES or config.get("encoding", "hex") not in ("hex", "base64"):
                raise ValueError("algorithm must be hmac-sha1|hmac-sha256|hmac-sha512, encoding hex|base64")
            for key in ("secret", "header", "message"):
                if not isinstance(config[key], str):
                    raise ValueError(f"'{key}' must be a string")
        except (ValueError, KeyError, UnicodeDecodeError) as e:
            raise BadRequest(f"signing config: {e}")
        with self.server.state.lock:
            self.server.state.signing = config
        self.json(200, {"signing": config["algorithm"]})

    def ep_signed(self, q):
        config = self.server.state.signing
        if config is None:
            raise BadRequest("POST /_admin/signing first")
        timestamp = self.h.get(config.get("timestamp_header", "x-timestamp").lower(), "")
        raw_path, _, raw_query = self.path.partition("?")
        message = signing_message(config["message"], self.command, raw_path, raw_query, self.body, self.h, timestamp)
        mac = hmac.new(config["secret"].encode("utf-8"), message.encode("utf-8"), SIGNING_HASHES[config["algorithm"]]).digest()
        encoded = mac.hex() if config.get("encoding", "hex") == "hex" else base64.b64encode(mac).decode()
        expected = config.get("prefix", "") + encoded
        seen = self.h.get(config["header"].lower(), "")
        skew = config.get("max_skew")
        fresh = skew is None or (timestamp.isdigit() and abs(time.time() - int(timestamp)) <= skew)
        valid = hmac.compare_digest(expected.encode(), seen.encode()) and fresh
        attempts = self.server.state.signed_attempt(q.get("key", "default"),
                                                    {"timestamp": timestamp, "signature": seen, "valid": valid})
        if not valid:
            reason = "bad signature" if fresh else f"stale timestamp '{timestamp}'"
            return self.json(401, {"error": f"{reason}; the server signed: {json.dumps(message)}"})
        if len(attempts) <= int_arg(q, "fail", 0, 0):
            return self.json(int_arg(q, "status", 503, 200, 599), {"error": "signed, but failing on purpose",
                                                                   "attempt": len(attempts)})
        self.json(200, {"items": self.server.state.dataset(DEFAULT_TOTAL)[:3], "attempts": attempts,
                        "body": self.body.decode("utf-8", errors="replace")})

    def ep_admin_expire(self, q):
        self.json(200, {"expired": self.server.state.expire_token()})

    # ---- benchmark

    # ---- HTTP/1.1 framing and connection handling (the built-in client's tests)

    def ep_chunked(self, q):
        """The first `count` items as a chunked body, cut into `parts` chunks, with a chunk
        extension and a trailer field."""
        items = self.server.state.dataset(DEFAULT_TOTAL)[: int_arg(q, "count", 5, 0, 1000)]
        body = dumps({"items": items})
        parts = int_arg(q, "parts", 3, 1, 1000)
        size = max(1, -(-len(body) // parts))
        out = [b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"]
        for start in range(0, len(body), size):
            piece = body[start:start + size]
            out.append(b"%x;note=part\r\n%s\r\n" % (len(piece), piece))
        out.append(b"0\r\nX-Trailer: done\r\n\r\n")
        self.wfile.write(b"".join(out))
        self.done(200)

    def stream_for(self, seconds, head, piece, end):
        """Writes `head`, then `piece` over and over (64 KiB at a time) for `seconds` or until the
        client hangs up, then `end` and closes: data that never stops arriving, which a client
        reading it can only stop by its own deadline or size limit."""
        self.close_connection = True
        if self.entry is not None:
            self.entry["status"] = 200
        block = piece * max(1, (64 << 10) // len(piece))
        self.wfile.write(head)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.wfile.write(block)  # BrokenPipe/ConnectionReset once the client gives up
        self.wfile.write(end)
        self.done(200)

    def ep_endless_chunks(self, q):
        """A chunked body of one-byte chunks (a space each) streamed for `seconds` (default 30),
        then `{}`: the body grows slowly while bytes never stop coming."""
        self.stream_for(float_arg(q, "seconds", 30.0, 0.0, 300.0),
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                        b"1\r\n \r\n", b"2\r\n{}\r\n0\r\n\r\n")

    def ep_endless_trailers(self, q):
        """A valid chunked body `{}`, then trailer fields (`X-T: aaaa...`) streamed for `seconds`
        (default 30), then the empty line that ends them."""
        self.stream_for(float_arg(q, "seconds", 30.0, 0.0, 300.0),
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        b"2\r\n{}\r\n0\r\n",
                        b"X-T: " + b"a" * 58 + b"\r\n", b"\r\n")

    def ep_until_close(self, q):
        """A body with neither Content-Length nor chunks: it ends when the server closes."""
        body = dumps({"items": self.server.state.dataset(DEFAULT_TOTAL)[:3]})
        self.close_connection = True
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + body)
        self.done(200)

    def ep_idle_close(self, q):
        """Answers with keep-alive, then closes the connection shortly after (an idle timeout)."""
        body = dumps({"items": self.server.state.dataset(DEFAULT_TOTAL)[:2]})
        self.wfile.write(self.head_bytes(200, [("Content-Type", "application/json")], len(body)) + body)
        self.done(200)
        self.wfile.flush()
        time.sleep(float_arg(q, "after", 0.05, 0.0, 5.0))
        self.close_connection = True

    def ep_raw(self, q):
        """Writes `bytes` (base64url) as the whole response, exactly; then closes the connection
        unless `keep=1`."""
        try:
            raw = base64.urlsafe_b64decode(q.get("bytes", "") + "==")
        except (binascii.Error, ValueError):
            raise BadRequest("'bytes' is not base64url")
        self.wfile.write(raw)
        self.done(200)
        if q.get("keep") != "1":
            self.close_connection = True

    def ep_redirect(self, q):
        """Redirects to `to` (a path or a URL) with `status` (302 by default); `hops` more
        redirects to itself first; `loop=1` redirects to this same URL, forever."""
        hops = int_arg(q, "hops", 0, 0, 100)
        status = int_arg(q, "status", 302, 300, 399)
        if q.get("loop") == "1":
            target = self.path  # this very request: a redirect loop
        elif hops > 0:
            rest = {k: v for k, v in q.items() if k != "hops"}
            rest["hops"] = str(hops - 1)
            target = "/redirect?" + urlencode(rest)
        else:
            target = q.get("to", "/echo")
        self.json(status, {"redirect": target}, headers=[("Location", target)])

    def ep_bench(self, q):
        key = (q.get("page", "1"), q.get("per_page", "10"), q.get("pages", "1000"))
        body = self.server.state.bench_cache.get(key)
        if body is None:
            page = int_arg(q, "page", 1, 1)
            size = int_arg(q, "per_page", 10, 1, 1000)
            pages = int_arg(q, "pages", 1000, 1)
            first = (page - 1) * size + 1
            items = [{"id": i, "name": f"item {i}", "ok": True} for i in range(first, first + size)] if page <= pages else []
            body = dumps({"items": items, "page": page, "next": page + 1 if page < pages else None})
            if len(self.server.state.bench_cache) < 100000:
                self.server.state.bench_cache[key] = body
        if self.close_connection:
            return self.send(200, body)
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                         % (len(body), body))
        self.done(200)

    # ---- GitHub-like API (/gh/...): organisations -> repositories -> issues

    def gh_serve(self, build, *args):
        """Runs one /gh data request: the configured delay (watching the socket), the rate limit,
        then `build(*args)` -> (status, value, headers); a GhError becomes its GitHub-style answer.
        Every answer carries the rate limit headers when a limit is set."""
        delay = self.server.state.gh_config["delay_ms"]
        if delay:
            self.wait_watching(delay / 1000.0)
        headers = []
        rate = self.server.state.gh_take()
        if rate is not None:
            config, used, allowed, left, reset_at = rate
            limit = config["rate_limit"]
            status = gh_effective(config)["rate_status"]
            if config["rate_style"] == "ietf":
                headers = [("RateLimit-Policy", f'"default";q={limit};w={math.ceil(config["rate_window"])}'),
                           ("RateLimit", f'"default";r={limit - used};t={math.ceil(left)}')]
                if not allowed:
                    return self.json(status, {"message": "rate limit exceeded"},
                                     headers=headers + [("Retry-After", str(math.ceil(left)))])
            else:
                headers = [("X-RateLimit-Limit", str(limit)), ("X-RateLimit-Remaining", str(limit - used)),
                           ("X-RateLimit-Reset", str(reset_at)), ("X-RateLimit-Used", str(used)),
                           ("X-RateLimit-Resource", "core")]
                if not allowed:
                    return self.json(status, GH_RATE_BODY, headers=headers)
        try:
            status, value, extra = build(*args)
        except GhError as e:
            status, value, extra = e.status, e.body, []
        self.json(status, value, headers=extra + headers)

    def gh_raw_query(self):
        """The query's `&`-separated parts exactly as the client sent them (encoding and order kept)."""
        return [part for part in self.path.partition("?")[2].split("&") if part]

    def gh_link(self, page, last, query_for):
        """GitHub's Link header: prev, next, last, first (next only before the last page, prev and
        first only after page 1); none at all when everything fits on page 1, as GitHub does."""
        if page == 1 and last == 1:
            return []
        path = self.path.partition("?")[0]
        if path.startswith("http://") or path.startswith("https://"):
            path = "/" + path.split("/", 3)[3] if path.count("/") >= 3 else "/"
        base = f"{self.server.scheme}://{self.host()}{path}?"
        rels = ([(page - 1, "prev")] if page > 1 else []) + ([(page + 1, "next")] if page < last else []) \
            + [(last, "last")] + ([(1, "first")] if page > 1 else [])
        return [("Link", ", ".join(f'<{base}{query_for(p)}>; rel="{rel}"' for p, rel in rels))]

    def gh_page(self, q, total):
        """(page, per_page, last) from ?page= (default 1) and ?per_page= (default 30, at most 100)."""
        page = gh_int(q, "page", 1)
        per_page = min(gh_int(q, "per_page", 30), 100)
        if page < 1 or per_page < 1:
            raise GhError(422, GH_INVALID)
        return page, per_page, max(1, -(-total // per_page))

    def ep_gh_org_repos(self, q, org):
        self.gh_serve(self.gh_org_repos, q, org)

    def gh_org_repos(self, q, org):
        found = gh_org(org)
        if found is None:
            raise GhError(404, GH_NOT_FOUND)
        code, count = found
        page, per_page, last = self.gh_page(q, count)
        newest = self.server.state.gh_timeline()[2]
        repos = [gh_repo(code, k, org, newest) for k in range((page - 1) * per_page + 1, min(count, page * per_page) + 1)]
        others = [p for p in self.gh_raw_query() if unquote_plus(p.partition("=")[0]) not in ("page", "per_page")]
        link = self.gh_link(page, last, lambda n: "&".join([f"per_page={per_page}", f"page={n}"] + others))
        return 200, repos, link

    def ep_gh_repo_issues(self, q, owner, repo):
        self.gh_serve(self.gh_repo_issues, q, owner, repo)

    def gh_repo_issues(self, q, owner, repo):
        found = gh_org(owner)
        k = gh_repo_index(*found, repo) if found else None
        if k is None:
            raise GhError(404, GH_NOT_FOUND)
        state = q.get("state", "open")
        direction = q.get("direction", "desc")
        if state not in ("open", "closed", "all") or direction not in ("asc", "desc") \
                or q.get("sort", "updated") not in ("created", "updated", "comments"):
            raise GhError(422, GH_INVALID)
        since = gh_parse_time(q["since"]) if "since" in q else None
        updated, edited, _ = self.server.state.gh_timeline()
        numbers = [i for i in range(1, len(updated))
                   if (state == "all" or (state == "open") == (i % 3 != 0)) and (since is None or updated[i] >= since)]
        if direction == "asc":
            numbers.sort(key=lambda i: (updated[i], i))
        else:
            numbers.sort(key=lambda i: (-updated[i], i))
        page, per_page, last = self.gh_page(q, len(numbers))
        code, name = found[0], gh_repo_name(found[0], k)
        issues = [gh_issue(code, k, name, i, updated[i], edited[i]) for i in numbers[(page - 1) * per_page: page * per_page]]
        parts = self.gh_raw_query()

        def query_for(n):  # the client's query, in its order, with page replaced (or appended)
            out, replaced = [], False
            for part in parts:
                if unquote_plus(part.partition("=")[0]) != "page":
                    out.append(part)
                elif not replaced:
                    out.append(f"page={n}")
                    replaced = True
            return "&".join(out if replaced else out + [f"page={n}"])

        return 200, issues, self.gh_link(page, last, query_for)

    def ep_gh_admin_advance(self, q):
        body = gh_json_object(self.body)
        touch, add = body.get("touch", 2), body.get("add", 1)
        if not (is_int(touch) and is_int(add) and touch >= 0 and add >= 0):
            raise BadRequest("'touch' and 'add' must be whole numbers >= 0")
        generation = self.server.state.gh_advance(touch, add)
        self.json(200, {"generation": generation, "touch": touch, "add": add})

    def ep_gh_admin_config(self, q):
        body = gh_json_object(self.body)
        unknown = set(body) - set(GH_DEFAULTS)
        if unknown:
            raise BadRequest(f"unknown config keys {sorted(unknown)}; known: {sorted(GH_DEFAULTS)}")
        checks = {
            "issues_per_repo": lambda v: is_int(v) and 0 <= v <= GH_MAX_ISSUES,
            "delay_ms": lambda v: is_int(v) and 0 <= v <= 120000,
            "rate_limit": lambda v: v is None or (is_int(v) and v >= 0),
            "rate_window": lambda v: (is_int(v) or isinstance(v, float)) and 0 < v <= 86400,
            "rate_style": lambda v: v in ("github", "ietf"),
            "rate_status": lambda v: v is None or (is_int(v) and 200 <= v <= 599),
        }
        for key, value in body.items():
            if not checks[key](value):
                raise BadRequest(f"bad value for '{key}': {json.dumps(value)}")
        if "rate_window" in body:
            body["rate_window"] = float(body["rate_window"])
        self.json(200, self.server.state.gh_configure(body))

    # ---- introspection

    def ep_log(self, q):
        state = self.server.state
        with state.lock:
            entries = [dict(e) for e in state.log]
        if "path" in q:
            entries = [e for e in entries if e["path"] == q["path"]]
        if q.get("summary") == "1":
            paths = {}
            for e in entries:
                paths[e["path"]] = paths.get(e["path"], 0) + 1
            return self.json(200, {
                "requests": len(entries),
                "connections": len({e["connection"] for e in entries}),
                "completed": sum(1 for e in entries if e["completed"]),
                "client_closed": sum(1 for e in entries if e["client_closed"]),
                "paths": paths,
            })
        self.json(200, {"requests": entries})

    def ep_reset_state(self, q):
        self.server.state.reset()
        self.json(200, {"reset": True})


GET = ("GET",)
POST = ("POST",)
ROUTES = {
    "/paged/page": (GET, Handler.ep_paged_page),
    "/paged/offset": (GET, Handler.ep_paged_offset),
    "/paged/cursor": (GET, Handler.ep_paged_cursor),
    "/paged/cursor-header": (GET, Handler.ep_paged_cursor_header),
    "/paged/link": (GET, Handler.ep_paged_link),
    "/paged/next-url": (GET, Handler.ep_paged_next_url),
    "/paged/loop": (GET, Handler.ep_paged_loop),
    "/paged/empty": (GET, Handler.ep_paged_empty),
    "/openapi.json": (GET, Handler.ep_openapi),
    "/csv": (GET, Handler.ep_csv),
    "/compressed": (GET, Handler.ep_compressed),
    "/jobs": (POST, Handler.ep_job_create),
    "/graphql": (POST, Handler.ep_graphql),
    "/ndjson": (GET, Handler.ep_ndjson),
    "/slow": (GET, Handler.ep_slow),
    "/flaky": (("GET", "POST"), Handler.ep_flaky),
    "/ratelimited": (GET, Handler.ep_ratelimited),
    "/reset": (GET, Handler.ep_reset),
    "/truncated": (GET, Handler.ep_truncated),
    "/malformed": (GET, Handler.ep_malformed),
    "/html": (GET, Handler.ep_html),
    "/no-content": (GET, Handler.ep_no_content),
    "/status": (GET, Handler.ep_status),
    "/stall": (GET, Handler.ep_stall),
    "/echo": (None, Handler.ep_echo),
    "/auth/basic": (GET, Handler.ep_auth_basic),
    "/auth/key": (GET, Handler.ep_auth_key),
    "/oauth/token": (POST, Handler.ep_oauth_token),
    "/oauth/items": (GET, Handler.ep_oauth_items),
    "/_admin/expire": (POST, Handler.ep_admin_expire),
    "/_admin/signing": (POST, Handler.ep_admin_signing),
    "/signed": (("GET", "POST"), Handler.ep_signed),
    "/bench": (GET, Handler.ep_bench),
    "/chunked": (GET, Handler.ep_chunked),
    "/until-close": (GET, Handler.ep_until_close),
    "/endless-chunks": (GET, Handler.ep_endless_chunks),
    "/endless-trailers": (GET, Handler.ep_endless_trailers),
    "/idle-close": (GET, Handler.ep_idle_close),
    "/redirect": (None, Handler.ep_redirect),
    "/raw": (GET, Handler.ep_raw),
    "/gh/_admin/advance": (POST, Handler.ep_gh_admin_advance),
    "/gh/_admin/config": (POST, Handler.ep_gh_admin_config),
    "/_log": (GET, Handler.ep_log),
    "/_reset": (POST, Handler.ep_reset_state),
}
# Paths with parameters, tried (prefix first, then the whole pattern) only when ROUTES has no exact
# match; the groups are passed to the endpoint after the query.
PATTERN_ROUTES = [
    ("/xml/", re.compile(r"/xml/([a-z]+)"), (GET, Handler.ep_xml)),
    ("/jobs/", re.compile(r"/jobs/([^/]+)/files/(\d+)"), (GET, Handler.ep_job_file)),
    ("/jobs/", re.compile(r"/jobs/([^/]+)/redirect/(\d+)"), (GET, Handler.ep_job_redirect)),
    ("/jobs/", re.compile(r"/jobs/([^/]+)"), (("GET", "DELETE"), Handler.ep_job_status)),
    ("/gh/orgs/", re.compile(r"/gh/orgs/([^/]+)/repos"), (GET, Handler.ep_gh_org_repos)),
    ("/gh/repos/", re.compile(r"/gh/repos/([^/]+)/([^/]+)/issues"), (GET, Handler.ep_gh_repo_issues)),
]


# --------------------------------------------------------------------------- server

class Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128

    scheme = "http"

    def __init__(self, address, handler, verbose=False, quiet=False):
        self.verbose = verbose
        self.quiet = quiet
        self.state = State()
        super().__init__(address, handler)

    def server_bind(self):
        # HTTPServer.server_bind calls socket.getfqdn(), a reverse DNS lookup; skip it.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = host, port

    def get_request(self):
        conn, addr = self.socket.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn, addr

    def handle_error(self, request, client_address):
        if not self.quiet:
            super().handle_error(request, client_address)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Reform's HTTP test server (see Tests/Server/README.md).")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free port; the default)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--quiet", action="store_true", help="print nothing but the 'listening on PORT' line")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    parser.add_argument("--keep-orphan", action="store_true",
                        help="keep serving when the parent process exits (default: exit with it)")
    parser.add_argument("--tls-cert", help="serve HTTPS with this certificate chain (PEM); with --tls-key")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    parser.add_argument("--tls-client-ca", help="require a client certificate issued by this CA (PEM): mutual TLS")
    args = parser.parse_args(argv)

    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    Server.address_family = family
    server = Server((args.host, args.port), Handler, verbose=args.verbose, quiet=args.quiet)
    if args.tls_cert:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        if args.tls_client_ca:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(args.tls_client_ca)
        # The handshake runs on the connection's own thread (Handler.setup), not in accept: a client
        # that connects and never finishes it would otherwise stop the server accepting anyone.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        server.scheme = "https"

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)

    if not args.keep_orphan:
        parent = os.getppid()

        def watch_parent():
            while True:
                time.sleep(0.5)
                if os.getppid() != parent:
                    os.kill(os.getpid(), signal.SIGTERM)
                    return

        threading.Thread(target=watch_parent, name="parent-watch", daemon=True).start()

    sys.stdout.write(f"listening on {server.server_address[1]}\n")
    sys.stdout.flush()
    if not args.quiet:
        sys.stderr.write(f"reform test server on http://{args.host}:{server.server_address[1]} (Ctrl-C stops)\n")
    try:
        server.serve_forever(poll_interval=0.5)
    except (SystemExit, KeyboardInterrupt):
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
