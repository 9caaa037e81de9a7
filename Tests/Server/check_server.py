#!/usr/bin/env python3
"""Self-check for reform_test_server.py (stdlib only): starts it on port 0, exercises every
endpoint once, stops it with SIGTERM and prints `ok N checks` (exit 0), or the failures (exit 1).

    python3 Tests/Server/check_server.py
"""

import base64
import email.utils
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "reform_test_server.py")

checks = 0
failures = []


def check(condition, what):
    global checks
    checks += 1
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)
    return condition


class Client:
    """One keep-alive connection (http.client)."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def request(self, method, target, body=None, headers=None):
        self.conn.request(method, target, body=body, headers=headers or {})
        r = self.conn.getresponse()
        data = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, data

    def get(self, target, headers=None):
        return self.request("GET", target, headers=headers)

    def json(self, method, target, body=None, headers=None):
        status, hdrs, data = self.request(method, target, body, headers)
        check(hdrs.get("content-type") == "application/json", f"{target}: content type is {hdrs.get('content-type')}")
        check(int(hdrs.get("content-length", -1)) == len(data), f"{target}: content length matches")
        return status, hdrs, json.loads(data)

    def close(self):
        self.conn.close()


def raw_request(port, target, read_timeout=5.0):
    """Sends GET target on a fresh socket; returns (bytes received, error or None)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=read_timeout)
    s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    received = b""
    error = None
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            received += chunk
    except OSError as e:
        error = e
    s.close()
    return received, error


def split_response(raw):
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return int(lines[0].split()[1]), headers, body


def log(c, path=None):
    _, _, body = c.json("GET", "/_log" + (f"?path={path}" if path else ""))
    return body["requests"]


def wait_for_log(c, path, predicate, seconds=2.0):
    deadline = time.monotonic() + seconds
    while True:
        entries = log(c, path)
        if entries and predicate(entries[-1]):
            return entries[-1]
        if time.monotonic() > deadline:
            return entries[-1] if entries else None
        time.sleep(0.05)


def main():
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, SERVER, "--port", "0", "--quiet"], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    check(line.startswith("listening on "), f"first line is 'listening on PORT' (got {line!r})")
    port = int(line.split()[2])
    c = Client(port)
    try:
        run_checks(c, port)
    finally:
        c.close()
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        check(rc == 0, f"exits 0 on SIGTERM (got {rc})")
        check(proc.stdout.read() == "", "nothing but the listening line on stdout")
    elapsed = time.monotonic() - started
    if failures:
        print(f"{len(failures)} of {checks} checks failed ({elapsed:.1f} s)")
        return 1
    print(f"ok {checks} checks ({elapsed:.1f} s)")
    return 0


def run_checks(c, port):
    base = f"http://127.0.0.1:{port}"

    # ---- paged: page
    ids = []
    page = 1
    while True:
        status, _, body = c.json("GET", f"/paged/page?page={page}&per_page=10")
        if not body["data"]["items"]:
            break
        ids += [i["id"] for i in body["data"]["items"]]
        check(body["data"]["total"] == 47 and body["data"]["page"] == page, "page: total and page")
        page += 1
    check(ids == list(range(1, 48)), "page: items 1..47 over 5 pages")
    _, _, body = c.json("GET", "/paged/page?page=1&per_page=10")
    item5 = body["data"]["items"][4]
    check(item5 == {"id": 5, "name": "商品 5", "price": 6.25, "tags": ["t2"]}, f"item 5 shape ({item5})")
    check(isinstance(body["data"]["items"][3]["price"], float), "price is a float (5.0)")
    _, _, body = c.json("GET", "/paged/page?total=12&per_page=5&page=3")
    check([i["id"] for i in body["data"]["items"]] == [11, 12], "page: total= override")

    # ---- offset
    _, _, body = c.json("GET", "/paged/offset?offset=40&limit=10")
    check([i["id"] for i in body["items"]] == list(range(41, 48)) and body["total"] == 47, "offset: last page")

    # ---- cursor (body and header)
    ids, cursor, pages = [], None, 0
    while True:
        _, _, body = c.json("GET", "/paged/cursor?limit=20" + (f"&cursor={cursor}" if cursor else ""))
        ids += [i["id"] for i in body["items"]]
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break
    check(ids == list(range(1, 48)) and pages == 3, "cursor: 3 pages, next_cursor null at the end")
    status, _, _ = c.json("GET", "/paged/cursor?cursor=!!bad")
    check(status == 400, "cursor: a bad cursor is 400")
    ids, cursor = [], None
    while True:
        _, hdrs, body = c.json("GET", "/paged/cursor-header?limit=20" + (f"&cursor={cursor}" if cursor else ""))
        check(isinstance(body, list), "cursor-header: top-level array")
        ids += [i["id"] for i in body]
        cursor = hdrs.get("x-next-cursor")
        if cursor is None:
            break
    check(ids == list(range(1, 48)), "cursor-header: X-Next-Cursor absent at the end")

    # ---- Link and next-url
    ids, target, first = [], "/paged/link?page=1&per_page=20", None
    while target:
        _, hdrs, body = c.json("GET", target)
        ids += [i["id"] for i in body]
        links = {p.split(";")[1].strip(): p.split(";")[0].strip()[1:-1] for p in hdrs["link"].split(", ")}
        first = links.get('rel="first"')
        nxt = links.get('rel="next"')
        target = nxt[len(base):] if nxt else None
        if nxt:
            check(nxt.startswith(base + "/paged/link?page="), f"link: absolute next URL ({nxt})")
    check(ids == list(range(1, 48)) and first == base + "/paged/link?page=1&per_page=20", "link: follows rel=next")
    ids, target = [], "/paged/next-url?page=1&per_page=25"
    while target:
        _, _, body = c.json("GET", target)
        ids += [i["id"] for i in body["results"]]
        target = body["next"][len(base):] if body["next"] else None
    check(ids == list(range(1, 48)), "next-url: follows 'next' until null")

    # ---- loop, empty
    _, _, a = c.json("GET", "/paged/loop")
    _, _, b = c.json("GET", f"/paged/loop?cursor={a['next_cursor']}")
    check(len(a["items"]) == 1 and a["next_cursor"] == b["next_cursor"] == "same", "loop: same cursor forever")
    _, _, body = c.json("GET", "/paged/empty")
    check(body == {"items": []}, "empty")

    # ---- keep-alive: everything above went over one connection
    entries = log(c)
    check(len({e["connection"] for e in entries}) == 1 and all(e["completed"] for e in entries),
          "keep-alive: one connection id for all requests so far, all completed")

    # ---- slow: answered, then a client that hangs up early
    t = time.monotonic()
    _, _, body = c.json("GET", "/slow?delay=0.2&tag=a")
    check(body == {"tag": "a", "delay": 0.2} and time.monotonic() - t >= 0.2, "slow: answers after the delay")
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET /slow?delay=5&tag=gone HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    time.sleep(0.2)
    s.close()
    entry = wait_for_log(c, "/slow", lambda e: e["client_closed"])
    check(entry and entry["query"].get("tag") == "gone" and entry["client_closed"] and not entry["completed"],
          f"slow: client close detected ({entry})")

    # ---- flaky
    statuses = [c.json("GET", "/flaky?key=f1&fail=2")[0] for _ in range(3)]
    check(statuses == [503, 503, 200], f"flaky: 503, 503, 200 ({statuses})")
    status, _, body = c.json("GET", "/flaky?key=f2&fail=1&status=500")
    check(status == 500 and "error" in body, "flaky: status=")
    _, _, body = c.json("GET", "/flaky?key=f2&fail=1&status=500")
    check(body["attempt"] == 2 and len(body["items"]) == 5, "flaky: attempt and 5 items")

    # ---- ratelimited
    status, hdrs, _ = c.json("GET", "/ratelimited?key=r1&fail=1&retry_after=2")
    check(status == 429 and hdrs.get("retry-after") == "2", "ratelimited: 429 Retry-After seconds")
    status, _, body = c.json("GET", "/ratelimited?key=r1&fail=1&retry_after=2")
    check(status == 200 and body["items"], "ratelimited: then 200")
    status, hdrs, _ = c.json("GET", "/ratelimited?key=r2&fail=1&retry_after=30&date=1")
    when = email.utils.parsedate_to_datetime(hdrs.get("retry-after", "")).timestamp()
    check(status == 429 and 25 <= when - time.time() <= 35, f"ratelimited: HTTP-date Retry-After ({hdrs.get('retry-after')})")

    # ---- reset: a partial body, then RST
    raw, error = raw_request(port, "/reset?key=x1&fail=1")
    status, hdrs, partial = split_response(raw) if raw else (0, {}, b"")
    check(isinstance(error, ConnectionResetError), f"reset: connection reset by peer ({error!r})")
    check(status in (0, 200) and len(partial) < int(hdrs.get("content-length", 1)), "reset: body shorter than Content-Length")
    status, _, body = c.json("GET", "/reset?key=x1&fail=1")
    check(status == 200 and len(body["items"]) == 5, "reset: then a full 200")
    check(log(c, "/reset")[0]["completed"] is False, "reset: logged as not completed")

    # ---- broken bodies and odd statuses
    status, hdrs, data = c.get("/truncated")
    check(status == 200 and int(hdrs["content-length"]) == len(data) and data == b'{"items": [{"id": 1, "na',
          "truncated: cut JSON with a correct length")
    status, hdrs, data = c.get("/malformed")
    check(status == 200 and data == b'{"items": [1, 2,,]}' and hdrs["content-type"] == "application/json", "malformed")
    status, hdrs, data = c.get("/html")
    check(status == 200 and hdrs["content-type"] == "text/html" and data == b"<html>oops</html>", "html")
    status, hdrs, data = c.get("/no-content")
    check(status == 204 and data == b"" and "content-type" not in hdrs, "no-content: 204, no body")
    status, hdrs, body = c.json("GET", "/status?code=418")
    check(status == 418 and body == {"error": "status 418"} and hdrs.get("x-request-id") == "abc", "status: 418")
    status, _, _ = c.json("GET", "/status?code=503")
    check(status == 503, "status: 503")

    # ---- stall: headers and some bytes, then nothing until the client hangs up
    s = socket.create_connection(("127.0.0.1", port), timeout=0.5)
    s.sendall(b"GET /stall?after=10 HTTP/1.1\r\nHost: x\r\n\r\n")
    got = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    except socket.timeout:
        pass
    s.close()
    status, hdrs, partial = split_response(got)
    check(status == 200 and len(partial) == 10 and int(hdrs["content-length"]) > 10, "stall: 10 body bytes, then silence")
    entry = wait_for_log(c, "/stall", lambda e: e["client_closed"])
    check(entry and entry["client_closed"], "stall: client close detected")

    # ---- echo, every method
    for method in ["GET", "POST", "PUT", "DELETE", "PATCH"]:
        body_in = None if method in ("GET", "DELETE") else f'{{"m": "{method}", "x": "é"}}'.encode()
        _, _, body = c.json(method, "/echo?a=1&b=two", body=body_in, headers={"X-Thing": "yes"})
        check(body["method"] == method and body["path"] == "/echo" and body["query"] == {"a": "1", "b": "two"}
              and body["headers"].get("x-thing") == "yes" and body["body"] == (body_in or b"").decode(),
              f"echo {method}")

    # ---- auth
    good = "Basic " + base64.b64encode(b"reform:s3cret").decode()
    bad = "Basic " + base64.b64encode(b"reform:nope").decode()
    status, hdrs, _ = c.json("GET", "/auth/basic")
    check(status == 401 and hdrs.get("www-authenticate", "").startswith("Basic"), "auth/basic: 401 + WWW-Authenticate")
    check(c.json("GET", "/auth/basic", headers={"Authorization": bad})[0] == 401, "auth/basic: wrong password")
    check(c.json("GET", "/auth/basic", headers={"Authorization": good})[0] == 200, "auth/basic: ok")
    check(c.json("GET", "/auth/key")[0] == 401, "auth/key: 401")
    check(c.json("GET", "/auth/key", headers={"X-API-Key": "k-123"})[0] == 200, "auth/key: header")
    check(c.json("GET", "/auth/key?api_key=k-123")[0] == 200, "auth/key: query")

    # ---- OAuth2
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    status, _, body = c.json("POST", "/oauth/token", body="grant_type=client_credentials&client_id=reform&client_secret=no",
                             headers=form)
    check(status == 401 and body == {"error": "invalid_client"}, "oauth: bad client 401")
    _, _, t1 = c.json("POST", "/oauth/token", body="grant_type=client_credentials&client_id=reform&client_secret=s3cret",
                      headers=form)
    check(t1["access_token"] == "tok-1" and t1["token_type"] == "Bearer" and t1["expires_in"] == 3600, f"oauth: token ({t1})")
    status, _, body = c.json("GET", "/oauth/items?page=1&per_page=5", headers={"Authorization": "Bearer tok-1"})
    check(status == 200 and len(body["items"]) == 5, "oauth: items with the token")
    check(c.json("GET", "/oauth/items")[0] == 401, "oauth: items without a token")
    _, _, t2 = c.json("POST", "/oauth/token", body="grant_type=client_credentials", headers={**form, "Authorization": good})
    check(t2["access_token"] == "tok-2", "oauth: client credentials via Basic")
    status, _, body = c.json("GET", "/oauth/items", headers={"Authorization": "Bearer tok-1"})
    check(status == 401 and body == {"error": "invalid_token"}, "oauth: an older token is refused")
    c.json("POST", "/_admin/expire")
    check(c.json("GET", "/oauth/items", headers={"Authorization": "Bearer tok-2"})[0] == 401, "oauth: expired token 401")
    t = time.monotonic()
    _, _, t3 = c.json("POST", "/oauth/token?delay=0.3", body="grant_type=refresh_token&refresh_token=r-1", headers=form)
    check(t3["access_token"] == "tok-3" and time.monotonic() - t >= 0.3, "oauth: refresh_token grant, ?delay=")
    check(c.json("GET", "/oauth/items", headers={"Authorization": "Bearer tok-3"})[0] == 200, "oauth: refreshed token works")

    # ---- request signing (a known answer computed with `openssl dgst -sha256 -hmac`)
    check(c.json("GET", "/signed")[0] == 400, "signed: needs a config first")
    config = {"algorithm": "hmac-sha256", "secret": "s3cret-key", "header": "X-Signature", "encoding": "hex",
              "timestamp_header": "X-Timestamp", "message": "{method}\n{path}\n{query}\n{timestamp}\n{body_sha256}"}
    c.json("POST", "/_admin/signing", body=json.dumps(config))
    good = {"X-Timestamp": "1700000000",
            "X-Signature": "bd19b74f46fe0bdc661620b1b490af685b04909227793a974a82dce5e362ff2c"}
    status, _, body = c.json("GET", "/signed?b=x%20y&a=1", headers=good)
    check(status == 200 and len(body["items"]) == 3 and body["attempts"][-1]["valid"], f"signed: good signature ({body})")
    status, _, body = c.json("GET", "/signed?b=x%20y&a=1", headers={**good, "X-Timestamp": "1700000001"})
    check(status == 401 and "bad signature" in body["error"], "signed: another timestamp is refused")
    c.json("POST", "/_admin/signing", body=json.dumps({**config, "algorithm": "hmac-sha512", "encoding": "base64",
                                                         "prefix": "v1="}))
    b64 = {**good, "X-Signature": "v1=1iqL5MKNs2NqljPtSVxVC5IDxxtLisgxfw6/2WFOoynbv4i8lFOTtHvVB+4hQWogIZ3L1HyL+MP904PCXtskkA=="}
    check(c.json("GET", "/signed?a=1&b=x+y&fail=1&key=s", headers=b64)[0] == 503, "signed: base64, prefix, fail=1")
    check(c.json("GET", "/signed?a=1&b=x+y&fail=1&key=s", headers=b64)[0] == 200, "signed: then 200")

    # ---- bench
    _, _, body = c.json("GET", "/bench?page=3&per_page=4&pages=3")
    check(body["next"] is None and [i["id"] for i in body["items"]] == [9, 10, 11, 12], "bench: last page")
    _, _, body = c.json("GET", "/bench?page=1&per_page=4&pages=3")
    check(body["next"] == 2 and body["page"] == 1, "bench: next page")

    # ---- errors
    status, _, body = c.json("GET", "/nope")
    check(status == 404 and "error" in body, "unknown path 404")
    status, hdrs, _ = c.json("POST", "/paged/page")
    check(status == 405 and hdrs.get("allow") == "GET", "wrong method 405")
    check(c.json("GET", "/paged/page?page=x")[0] == 400, "bad number 400")

    # ---- concurrent connections, log, reset
    results = []
    threads = [threading.Thread(target=lambda: results.append(Client(port).json("GET", "/slow?delay=0.3&tag=p")[0]))
               for _ in range(4)]
    t = time.monotonic()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    check(results == [200] * 4 and time.monotonic() - t < 1.0, "4 slow requests run concurrently")
    entries = log(c)
    check(all(k in entries[0] for k in ["seq", "method", "path", "query", "connection", "completed", "client_closed"]),
          "log entry fields")
    check(not any(e["path"] in ("/_log", "/_reset") for e in entries), "log leaves out /_log and /_reset")
    c.json("POST", "/_reset")
    check(log(c) == [], "reset clears the log")
    check(c.json("GET", "/flaky?key=f1&fail=1")[0] == 503, "reset clears counters")
    _, _, t4 = c.json("POST", "/oauth/token", body="grant_type=refresh_token&refresh_token=r-1", headers=form)
    check(t4["access_token"] == "tok-1", "reset clears tokens")


if __name__ == "__main__":
    sys.exit(main())
