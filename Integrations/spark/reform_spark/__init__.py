"""Run Reform pipelines as a stage of Apache Spark.

    from reform_spark import run_batch, run_fanout
    result = run_batch(spark, "Pipelines/property-list.yaml",
                       {"zufang": "/data/z.ndjson", "xinfang": "/data/x.ndjson"}, "/data/out",
                       reform="reform-0.9.0-linux-x86_64.tar.gz", max_rejects=100)

See Integrations/spark/README.md.
"""
from .commit import commit_attempt
from .jobs import JobResult, RejectsExceeded, Shard, run_batch, run_fanout
from .splits import DEFAULT_SPLIT_BYTES, Split, plan_splits

__all__ = ["run_batch", "run_fanout", "plan_splits", "commit_attempt", "JobResult", "RejectsExceeded", "Split",
           "Shard", "DEFAULT_SPLIT_BYTES"]
