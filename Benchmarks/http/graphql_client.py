#!/usr/bin/env python3
"""The Python side of the GraphQL benchmark (MODE=graphql): one requests.Session POSTs the test
server's /graphql query page after page, the cursor from pageInfo.endCursor in the variables,
until hasNextPage is false, and writes every node as NDJSON — the loop a GraphQL client is.

    python3 graphql_client.py PORT PAGES PER_PAGE OUT.ndjson
"""
import json
import os
import sys

import requests

QUERY = """query($owner: String!, $repo: String!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $repo) {
    issues(first: $first, after: $after) { nodes { number title } pageInfo { endCursor hasNextPage } }
  }
}
"""


def main():
    port, pages, per_page, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    scheme = os.environ.get("REFORM_BENCH_SCHEME", "http")  # https: REQUESTS_CA_BUNDLE names the CA
    url = f"{scheme}://127.0.0.1:{port}/graphql?total={pages * per_page}"
    session = requests.Session()
    after = None
    with open(out, "w", encoding="utf-8") as f:
        while True:
            variables = {"owner": "acme", "repo": "widgets", "first": per_page, "after": after}
            r = session.post(url, json={"query": QUERY, "variables": variables})
            r.raise_for_status()
            body = r.json()
            if body.get("errors"):
                raise SystemExit(f"GraphQL errors: {body['errors']}")
            connection = body["data"]["repository"]["issues"]
            for node in connection["nodes"]:
                f.write(json.dumps(node, ensure_ascii=False) + "\n")
            if not connection["pageInfo"]["hasNextPage"]:
                break
            after = connection["pageInfo"]["endCursor"]
    session.close()


if __name__ == "__main__":
    main()
