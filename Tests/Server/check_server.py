#!/usr/bin/env python3
"""Self-check for reform_test_server.py (stdlib only): starts it on port 0, exercises every
endpoint once, stops it with SIGTERM and prints `ok N checks` (exit 0), or the failures (exit 1).

    python3 Tests/Server/check_server.py
"""

import base64
import email.utils
import gzip
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import zlib

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
        run_gh_checks(c, port)
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

    # ---- GraphQL: a connection paged by endCursor, errors with status 200
    query = "query($owner: String!, $repo: String!, $first: Int!, $after: String) { repository(owner: $owner, name: $repo) " \
        "{ issues(first: $first, after: $after) { nodes { number title } pageInfo { endCursor hasNextPage } } } }"
    numbers, after, pages = [], None, 0
    while True:
        variables = {"owner": "o", "repo": "r", "first": 10, "after": after}
        status, _, body = c.json("POST", "/graphql?total=25", body=json.dumps({"query": query, "variables": variables}).encode())
        connection = body["data"]["repository"]["issues"]
        numbers += [node["number"] for node in connection["nodes"]]
        pages += 1
        if not connection["pageInfo"]["hasNextPage"]:
            break
        after = connection["pageInfo"]["endCursor"]
    check(status == 200 and numbers == list(range(1, 26)) and pages == 3, f"graphql: 25 issues in 3 pages ({pages})")
    missing = {"query": query, "variables": {"owner": "o", "repo": "missing", "first": 10}}
    status, _, body = c.json("POST", "/graphql", body=json.dumps(missing).encode())
    check(status == 200 and body["data"]["repository"] is None and body["errors"][0]["type"] == "NOT_FOUND", "graphql: NOT_FOUND")
    wrong = {"query": query, "variables": {"owner": "o", "repo": "r", "first": "10"}}
    status, _, body = c.json("POST", "/graphql", body=json.dumps(wrong).encode())
    check(status == 200 and "data" not in body and "$first" in body["errors"][0]["message"], "graphql: a string for an Int")
    limited = {"query": query.replace("repository(", "rateLimit { limit remaining resetAt } repository("),
               "variables": {"owner": "o", "repo": "r", "first": 5}}
    answers = [c.json("POST", "/graphql?budget=2&window=60&key=check", body=json.dumps(limited).encode())[2] for _ in range(3)]
    rates = [a.get("data", {}).get("rateLimit") for a in answers]
    check(rates[0]["limit"] == 2 and rates[0]["remaining"] == 1 and rates[1]["remaining"] == 0
          and rates[1]["resetAt"].endswith("Z") and rates[2] is None and answers[2]["errors"][0]["type"] == "RATE_LIMITED",
          f"graphql: a budget, data.rateLimit, then RATE_LIMITED ({rates})")
    again = [c.json("POST", "/graphql?budget=1&window=60&refusals=1&key=check2", body=json.dumps(limited).encode())[2]
             for _ in range(3)]
    check([("errors" in a) for a in again] == [False, True, False], "graphql: refusals=1 ends the window after one refusal")

    # ---- compressed bodies
    for how, inflate in [("gzip", gzip.decompress), ("two-members", gzip.decompress), ("deflate", zlib.decompress),
                         ("raw-deflate", lambda b: zlib.decompress(b, -15))]:
        status, hdrs, data = c.request("GET", f"/compressed?as={how}&per_page=3", None, {"Accept-Encoding": "gzip, deflate"})
        check(status == 200 and json.loads(inflate(data))["data"]["items"][2]["id"] == 3, f"compressed: {how}")
    status, _, _ = c.request("GET", "/compressed?as=gzip", None, {"Accept-Encoding": "identity"})
    check(status == 406, "compressed: gzip not accepted is 406")
    status, hdrs, data = c.request("GET", "/compressed?as=gzip-file&per_page=2", None, None)
    check(hdrs.get("content-type") == "application/gzip" and len(gzip.decompress(data).splitlines()) == 2, "compressed: a gzip file")

    # ---- export jobs: create, poll, files (same origin with the bearer; other origin signed, no bearer)
    bearer = {"Authorization": "Bearer job-token"}
    status, _, job = c.json("POST", "/jobs", body=b'{"rows": 5, "parts": 2, "polls": 1, "files": "other"}', headers=bearer)
    check(status == 202 and job["status"] == "queued", "jobs: created")
    check(c.json("GET", f"/jobs/{job['id']}", headers=bearer)[2]["status"] == "running", "jobs: running at the first poll")
    done = c.json("GET", f"/jobs/{job['id']}", headers=bearer)[2]
    check(done["status"] == "completed" and len(done["files"]) == 2 and "//localhost:" in done["files"][0]["url"], "jobs: completed")
    target = done["files"][1]["url"].split("/", 3)[3]
    status, hdrs, data = c.request("GET", "/" + target, None, None)
    check(status == 200 and hdrs.get("content-type") == "application/gzip" and len(gzip.decompress(data).splitlines()) == 2,
          "jobs: a signed file without a bearer")
    check(c.request("GET", "/" + target, None, bearer)[0] == 400, "jobs: a signed file with a bearer is refused")
    check(c.json("POST", "/jobs", body=b"{}")[0] == 401, "jobs: no bearer")

    # ---- XML
    status, hdrs, data = c.request("GET", "/xml/rss?per_page=2", None, None)
    check(status == 200 and hdrs.get("content-type", "").startswith("application/xml") and data.count(b"<item>") == 2, "xml: rss")
    check(c.request("GET", "/xml/soap", None, None)[2].count(b"<m:Order ") == 2, "xml: soap")

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



def parse_link(value):
    """{rel: url} from a Link header."""
    links = {}
    for part in (value or "").split(", "):
        if part:
            url, _, rel = part.partition("; ")
            links[rel.split('"')[1]] = url[1:-1]
    return links


def run_gh_checks(c, port):
    """The GitHub-like API: orgs -> repos -> issues, since, Link paging, rate limits, delay."""
    base = f"http://127.0.0.1:{port}"
    c.json("POST", "/_reset")

    # ---- repos of org-25, 10 a page: 3 pages and GitHub's Link header
    ids, target, pages, links = [], "/gh/orgs/org-25/repos?per_page=10&page=1", 0, []
    while target:
        status, hdrs, body = c.json("GET", target)
        check(status == 200 and isinstance(body, list), f"gh repos: 200 array ({target})")
        check("x-ratelimit-limit" not in hdrs and "ratelimit" not in hdrs, "gh repos: no rate limit headers without a limit")
        ids += [r["id"] for r in body]
        pages += 1
        links.append(hdrs.get("link"))
        nxt = parse_link(hdrs.get("link")).get("next")
        target = nxt[len(base):] if nxt else None
    repos_url = base + "/gh/orgs/org-25/repos?per_page=10&page="
    check(ids == list(range(200001, 200026)) and pages == 3, f"gh repos: org-25 is 25 repos in 3 pages ({ids})")
    check(links[0] == f'<{repos_url}2>; rel="next", <{repos_url}3>; rel="last"', f"gh repos: page 1 Link ({links[0]})")
    check(links[1] == f'<{repos_url}1>; rel="prev", <{repos_url}3>; rel="next", <{repos_url}3>; rel="last", '
                      f'<{repos_url}1>; rel="first"', f"gh repos: page 2 Link ({links[1]})")
    check("next" not in parse_link(links[2]) and parse_link(links[2]).get("last") == repos_url + "3",
          f"gh repos: no rel=next on the last page ({links[2]})")
    _, hdrs, body = c.json("GET", "/gh/orgs/org-25/repos?page=3&per_page=10")
    check(len(body) == 5 and body[0] == {"id": 200021, "name": "repo-21", "full_name": "org-25/repo-21",
                                         "owner": {"login": "org-25"}, "private": False,
                                         "updated_at": "2026-01-01T00:12:00Z"}, f"gh repos: repo shape ({body[0]})")
    check(parse_link(hdrs.get("link")).get("prev") == repos_url + "2", "gh repos: Link keeps per_page before page")
    _, hdrs, body = c.json("GET", "/gh/orgs/acme/repos")
    check([r["name"] for r in body] == ["widgets", "gadgets", "gizmos", "doohickeys"]
          and [r["id"] for r in body] == [100001, 100002, 100003, 100004] and body[1]["full_name"] == "acme/gadgets",
          "gh repos: acme's 4 repositories")
    check("link" not in hdrs, "gh repos: no Link when everything fits on one page")
    _, hdrs, body = c.json("GET", "/gh/orgs/org-250/repos?per_page=500")
    check(len(body) == 100 and parse_link(hdrs.get("link")).get("last") == base + "/gh/orgs/org-250/repos?per_page=100&page=3",
          "gh repos: per_page is at most 100")
    check(len(c.json("GET", "/gh/orgs/org-25/repos?per_page=10&page=4")[2]) == 0, "gh repos: past the last page: []")

    # ---- 404, 422, 405
    for target in ["/gh/orgs/nope/repos", "/gh/orgs/org-0/repos", "/gh/orgs/org-1001/repos", "/gh/orgs/org-07/repos",
                   "/gh/repos/acme/nope/issues", "/gh/repos/org-3/repo-4/issues", "/gh/repos/nope/repo-1/issues",
                   "/gh/orgs/acme/nope"]:
        status, _, body = c.json("GET", target)
        check(status == 404 and body == {"message": "Not Found"}, f"gh: 404 Not Found for {target} ({status} {body})")
    for target in ["/gh/repos/acme/widgets/issues?since=yesterday", "/gh/repos/acme/widgets/issues?since=2026-13-01T00:00:00Z",
                   "/gh/repos/acme/widgets/issues?state=maybe", "/gh/repos/acme/widgets/issues?per_page=x"]:
        status, _, body = c.json("GET", target)
        check(status == 422 and body == {"message": "Validation Failed"}, f"gh: 422 Validation Failed for {target}")
    status, hdrs, _ = c.json("POST", "/gh/orgs/acme/repos")
    check(status == 405 and hdrs.get("allow") == "GET", "gh: wrong method on a pattern route is 405")

    # ---- issues: the default is state=open, newest first
    _, hdrs, body = c.json("GET", "/gh/repos/acme/widgets/issues")
    check([i["number"] for i in body] == [11, 10, 8, 7, 5, 4, 2, 1], f"gh issues: open ones, desc ({[i['number'] for i in body]})")
    check("link" not in hdrs, "gh issues: one page, no Link")
    by_number = {i["number"]: i for i in c.json("GET", "/gh/repos/acme/widgets/issues?state=all&per_page=100")[2]}
    check(sorted(by_number) == list(range(1, 13)), "gh issues: state=all has 12")
    check(by_number[4] == {"id": 1000004, "number": 4, "title": '修复 "bug" 4 of widgets', "state": "open",
                           "labels": [{"name": "bug"}, {"name": "p1"}], "user": {"login": "user-4"}, "comments": 0,
                           "updated_at": "2026-01-01T00:04:00Z"}, f"gh issues: issue 4 shape ({by_number[4]})")
    check(by_number[5]["labels"] == [{"name": "docs"}] and by_number[1]["labels"] == [] and by_number[5]["title"] == "Issue 5 of widgets",
          "gh issues: labels and titles")
    check(by_number[12]["state"] == "closed" and by_number[3]["state"] == "closed" and by_number[7]["comments"] == 3,
          "gh issues: state and comments")
    _, _, body = c.json("GET", "/gh/repos/acme/widgets/issues?state=closed&direction=asc")
    check([i["number"] for i in body] == [3, 6, 9, 12], "gh issues: state=closed, asc")
    other = c.json("GET", "/gh/repos/org-3/repo-2/issues?state=all")[2]
    check(len({i["id"] for i in other} | set(i["id"] for i in by_number.values())) == 24, "gh issues: ids unique across repos")

    # ---- issues: Link keeps the client's query, in its order, with page replaced or appended
    issues = "/gh/repos/acme/widgets/issues"
    _, hdrs, body = c.json("GET", issues + "?state=all&direction=asc&per_page=5")
    links = parse_link(hdrs.get("link"))
    check(links.get("next") == base + issues + "?state=all&direction=asc&per_page=5&page=2"
          and links.get("last") == base + issues + "?state=all&direction=asc&per_page=5&page=3",
          f"gh issues: page appended in Link ({hdrs.get('link')})")
    numbers, target = [], issues + "?state=all&page=1&per_page=5&direction=asc&since=2026-01-01T00%3A00%3A00Z"
    while target:
        _, hdrs, body = c.json("GET", target)
        numbers += [i["number"] for i in body]
        nxt = parse_link(hdrs.get("link")).get("next")
        if nxt:
            check(nxt.startswith(base + issues + "?state=all&page=") and nxt.endswith("&per_page=5&direction=asc&since=2026-01-01T00%3A00%3A00Z"),
                  f"gh issues: page replaced in place, the rest kept verbatim ({nxt})")
        target = nxt[len(base):] if nxt else None
    check(numbers == list(range(1, 13)), f"gh issues: paging asc through 12 ({numbers})")

    # ---- since, inclusive; then advance and fetch exactly what changed
    _, _, body = c.json("GET", issues + "?state=all&since=2026-01-01T00:10:00Z&direction=asc")
    check([i["number"] for i in body] == [10, 11, 12], "gh issues: since is inclusive")
    _, _, body = c.json("GET", issues + "?state=all&since=2026-01-01T01:10:00%2B01:00&direction=asc")
    check([i["number"] for i in body] == [10, 11, 12], "gh issues: since with a zone offset")
    _, hdrs, body = c.json("POST", "/gh/_admin/advance")
    check(body == {"generation": 1, "touch": 2, "add": 1}, f"gh advance: defaults touch 2, add 1 ({body})")
    _, _, body = c.json("GET", issues + "?state=all&since=2026-01-02T00:00:00Z&direction=asc")
    check([i["number"] for i in body] == [1, 2, 13], f"gh advance: since returns the touched and added ({[i['number'] for i in body]})")
    check([i["updated_at"] for i in body] == ["2026-01-02T00:01:00Z", "2026-01-02T00:02:00Z", "2026-01-02T00:13:00Z"]
          and body[0]["title"] == "Issue 1 of widgets (edited g1)" and body[2]["title"] == "Issue 13 of widgets",
          f"gh advance: times and titles ({body})")
    _, _, body = c.json("POST", "/gh/_admin/advance", body=json.dumps({"touch": 3, "add": 2}))
    check(body["generation"] == 2, "gh advance: generation 2")
    for repo in ["acme/widgets", "org-3/repo-2"]:
        _, _, body = c.json("GET", f"/gh/repos/{repo}/issues?state=all&since=2026-01-03T00:00:00Z&direction=asc")
        check([i["number"] for i in body] == [1, 2, 3, 14, 15], f"gh advance: every repo changes ({repo})")
        check(body[0]["title"].endswith(" (edited g2)") and body[0]["updated_at"] == "2026-01-03T00:01:00Z",
              "gh advance: the newest edit wins")
    _, _, body = c.json("GET", issues + "?state=all&per_page=100")
    check([i["number"] for i in body] == [15, 14, 3, 2, 1, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4],
          f"gh advance: 15 issues, desc by updated_at ({[i['number'] for i in body]})")
    _, _, body = c.json("GET", "/gh/orgs/acme/repos")
    check(body[0]["updated_at"] == "2026-01-03T00:15:00Z", f"gh advance: repo updated_at follows ({body[0]['updated_at']})")
    check(c.json("POST", "/gh/_admin/advance", body='{"touch": -1}')[0] == 400, "gh advance: bad body 400")

    # ---- config
    _, _, cfg = c.json("POST", "/gh/_admin/config", body="{}")
    check(cfg == {"issues_per_repo": 12, "delay_ms": 0, "rate_limit": None, "rate_window": 60.0,
                  "rate_style": "github", "rate_status": 403}, f"gh config: defaults ({cfg})")
    check(c.json("POST", "/gh/_admin/config", body='{"nope": 1}')[0] == 400, "gh config: unknown key 400")
    check(c.json("POST", "/gh/_admin/config", body='{"rate_style": "x"}')[0] == 400, "gh config: bad value 400")
    c.json("POST", "/_reset")
    _, _, cfg = c.json("POST", "/gh/_admin/config", body='{"issues_per_repo": 40}')
    check(cfg["issues_per_repo"] == 40, "gh config: issues_per_repo")
    _, hdrs, body = c.json("GET", issues + "?state=all&per_page=30")
    check(len(body) == 30 and parse_link(hdrs.get("link")).get("last", "").endswith("page=2"), "gh config: 40 issues, 2 pages")

    # ---- delay_ms
    c.json("POST", "/gh/_admin/config", body='{"delay_ms": 200}')
    t = time.monotonic()
    check(c.json("GET", "/gh/orgs/acme/repos")[0] == 200 and time.monotonic() - t >= 0.2, "gh delay_ms: answers after the delay")
    t = time.monotonic()
    c.json("POST", "/gh/_admin/config", body='{"delay_ms": 0}')
    check(time.monotonic() - t < 0.2, "gh delay_ms: admin requests are not delayed")

    # ---- rate limit, GitHub style: 3 per 0.5 s, then 403, then a fresh window
    _, _, cfg = c.json("POST", "/gh/_admin/config", body='{"rate_limit": 3, "rate_window": 0.5}')
    check(cfg["rate_limit"] == 3 and cfg["rate_window"] == 0.5 and cfg["rate_status"] == 403, "gh rate: config")
    seen = []
    for target in ["/gh/orgs/acme/repos", issues, "/gh/orgs/nope/repos"]:
        status, hdrs, _ = c.json("GET", target)
        seen.append((status, hdrs.get("x-ratelimit-limit"), hdrs.get("x-ratelimit-remaining"),
                     hdrs.get("x-ratelimit-used"), hdrs.get("x-ratelimit-resource")))
    check(seen == [(200, "3", "2", "1", "core"), (200, "3", "1", "2", "core"), (404, "3", "0", "3", "core")],
          f"gh rate: Limit, Remaining, Used, Resource on every answer ({seen})")
    reset_at = int(hdrs.get("x-ratelimit-reset", "0"))
    check(time.time() <= reset_at <= time.time() + 2, f"gh rate: X-RateLimit-Reset is the window's end, epoch seconds ({reset_at})")
    status, hdrs, body = c.json("GET", "/gh/orgs/acme/repos")
    check(status == 403 and body == {"message": "API rate limit exceeded for 127.0.0.1. (But here's the good news: "
                                                "Authenticated requests get a higher rate limit.)",
                                     "documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"},
          f"gh rate: 403 with GitHub's message when spent ({status} {body})")
    check(hdrs.get("x-ratelimit-remaining") == "0" and hdrs.get("x-ratelimit-limit") == "3"
          and hdrs.get("x-ratelimit-reset") == str(reset_at), "gh rate: Remaining 0, same Reset")
    status, hdrs, _ = c.json("POST", "/gh/_admin/advance")
    check(status == 200 and "x-ratelimit-limit" not in hdrs, "gh rate: admin endpoints are not limited")
    check(log(c, "/gh/orgs/acme/repos")[-1]["status"] == 403, "gh rate: the refused request is logged with 403")
    time.sleep(0.6)
    status, hdrs, _ = c.json("GET", "/gh/orgs/acme/repos")
    check(status == 200 and hdrs.get("x-ratelimit-remaining") == "2" and hdrs.get("x-ratelimit-used") == "1",
          "gh rate: the budget refills after the window")
    c.json("POST", "/gh/_admin/config", body='{"rate_status": 429}')
    statuses = [c.json("GET", "/gh/orgs/acme/repos")[0] for _ in range(4)]
    check(statuses == [200, 200, 200, 429], f"gh rate: rate_status ({statuses})")

    # ---- rate limit, IETF style
    _, _, cfg = c.json("POST", "/gh/_admin/config", body='{"rate_style": "ietf", "rate_limit": 2, "rate_status": null}')
    check(cfg["rate_status"] == 429, "gh rate ietf: 429 by default")
    status, hdrs, _ = c.json("GET", "/gh/orgs/acme/repos")
    check(status == 200 and hdrs.get("ratelimit-policy") == '"default";q=2;w=1' and hdrs.get("ratelimit") == '"default";r=1;t=1'
          and "x-ratelimit-limit" not in hdrs, f"gh rate ietf: RateLimit-Policy and RateLimit ({hdrs})")
    c.json("GET", "/gh/orgs/acme/repos")
    status, hdrs, body = c.json("GET", "/gh/orgs/acme/repos")
    check(status == 429 and body == {"message": "rate limit exceeded"} and hdrs.get("retry-after") == "1"
          and hdrs.get("ratelimit") == '"default";r=0;t=1', f"gh rate ietf: 429, Retry-After, r=0 ({status} {hdrs})")
    time.sleep(0.6)
    check(c.json("GET", "/gh/orgs/acme/repos")[0] == 200, "gh rate ietf: refills")

    # ---- /_reset returns to generation 0 and the default config
    c.json("POST", "/_reset")
    _, hdrs, body = c.json("GET", issues + "?state=all&per_page=100")
    check(len(body) == 12 and body[0]["updated_at"] == "2026-01-01T00:12:00Z" and "ratelimit" not in hdrs
          and "x-ratelimit-limit" not in hdrs, "gh reset: generation 0, 12 issues, no rate limit")
    check(c.json("POST", "/gh/_admin/config")[2]["rate_style"] == "github", "gh reset: default config")


if __name__ == "__main__":
    sys.exit(main())
