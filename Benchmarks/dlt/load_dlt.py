"""Loads an NDJSON file of issues into PostgreSQL with dlt, as Benchmarks/dlt/run.sh times it.

    python load_dlt.py FILE DATASET replace|merge PIPELINES_DIR

The credentials come from DLT_PG_URL (postgresql://user:pass@host:port/db, `?host=/socket/dir`
allowed). The resource yields lists of 1,000 parsed records (dlt's advice for speed: a page
at a time, not one item); `replace` truncates and inserts, `merge` upserts on `id`. dlt makes
the tables DATASET.issues and DATASET.issues__labels (the nested `labels` list), and flattens
`user` into user__login and user__id. DLT_FORMAT picks the loader file format (dlt's default
for postgres, insert_values, or csv, loaded with COPY).
"""
import os
import sys

import dlt

try:
    from orjson import loads
except ImportError:
    from json import loads

path, dataset, disposition, pipelines_dir = sys.argv[1:]
assert disposition in ("replace", "merge"), disposition


@dlt.resource(name="issues", write_disposition=disposition, primary_key="id" if disposition == "merge" else None)
def issues():
    page = []
    with open(path, "rb") as f:
        for line in f:
            page.append(loads(line))
            if len(page) == 1000:
                yield page
                page = []
    if page:
        yield page


pipeline = dlt.pipeline(
    pipeline_name="issues_" + dataset,
    pipelines_dir=pipelines_dir,
    destination=dlt.destinations.postgres(credentials=os.environ["DLT_PG_URL"]),
    dataset_name=dataset,
    progress=None,
)
info = pipeline.run(issues(), loader_file_format=os.environ.get("DLT_FORMAT") or None)
info.raise_on_failed_jobs()
