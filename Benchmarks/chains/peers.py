"""The peers' versions of the chains in chains.yaml: jq programs, Python+orjson functions, DuckDB
queries and polars lazy frames, each producing the records Reform produces (jq -c byte for byte; the
others equal as JSON, or as parsed CSV for the rows).

Imported by run.py; `python3 peers.py python CHAIN IN OUT` runs the Python version of one chain,
`peers.py duckdb|polars CHAIN IN OUT THREADS` the others.
"""
import csv
import os
import sys
from datetime import datetime, timezone

CHAINS = ("mapped", "exploded", "sorted", "rows-csv", "fanned", "large-sort", "selected")
# The fanned chain: one run, two outputs (files of these names in the tool's output folder), each
# what the chain of that name writes alone.
FANNED = ("mapped", "exploded")

# ---------------------------------------------------------------- jq (1.6)
# ISO 8601 with an offset to UTC, as Reform's `convert: date` writes it.
_JQ_UTC = (
    'def utc: (.[0:19] + "Z" | fromdateiso8601)'
    ' - ((.[20:22] | tonumber) * 3600 + (.[23:25] | tonumber) * 60) * (if .[19:20] == "+" then 1 else -1 end)'
    " | todateiso8601;"
)
_JQ_MAPPED = (
    '{id, label: "\\(.name) · \\(.location.district)", price: (.price | tonumber), phone: (.agent.phone | tonumber),'
    " verified: .agent.verified, lat: .location.lat, updated: (.updated_at | utc)}"
    " | select(.price < 60000 and .verified == true and .lat >= 31.2)"
)
JQ = {
    "mapped": ["-c", _JQ_UTC + _JQ_MAPPED],
    "exploded": ["-c", '.tags[] as $tag | {id, tag: $tag, price, floor: (if .floor == null then "unknown" else .floor end)}'],
    # jq's sort_by is stable.
    "large-sort": [
        "-c",
        "-n",
        '[inputs | .tags[] as $tag | {id, tag: $tag, price, floor: (if .floor == null then "unknown" else .floor end)}]'
        " | sort_by(.price) | .[]",
    ],
    # Stable sort by price, then the first record of each update time, in sorted order.
    "sorted": [
        "-c",
        "-n",
        _JQ_UTC
        + "[inputs | "
        + _JQ_MAPPED
        + "] | sort_by(.price) | to_entries | group_by(.value.updated) | map(.[0]) | sort_by(.key) | .[].value",
    ],
    # Whole records, kept or not (jq's select).
    "selected": ["-c", "select(.price < 60000 and .agent.verified == true)"],
    # jq quotes every string in @csv; compared with the others as parsed CSV, header added.
    "rows-csv": ["-r", "[.id, .name, .title, .location.city, .price] | @csv"],
}
JQ_CSV_HEADER = '"id","name","title","city","price"\n'


# ---------------------------------------------------------------- Python + orjson
def _utc(text):
    return datetime.fromisoformat(text).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _map(r):
    """The mapped chain's record for `r`, or None when its filter drops it."""
    location, agent = r["location"], r["agent"]
    out = {
        "id": r["id"],
        "label": "%s · %s" % (r["name"], location["district"]),
        "price": float(r["price"]),
        "phone": int(agent["phone"]),
        "verified": agent["verified"],
        "lat": location["lat"],
        "updated": _utc(r["updated_at"]),
    }
    if out["price"] < 60000 and out["verified"] is True and out["lat"] >= 31.2:
        return out
    return None


def _mapped(lines, loads):
    for line in lines:
        if not line.strip():
            continue
        out = _map(loads(line))
        if out is not None:
            yield out


def _exploded(r):
    floor = "unknown" if r["floor"] is None else r["floor"]
    return ({"id": r["id"], "tag": tag, "price": r["price"], "floor": floor} for tag in r["tags"])


def _explode(r, write, dumps):
    for record in _exploded(r):
        write(dumps(record))
        write(b"\n")


def python_chain(chain, src, dst):
    import orjson

    loads, dumps = orjson.loads, orjson.dumps
    if chain == "fanned":  # one pass, two files
        with open(src, "rb", buffering=1 << 20) as f, open(os.path.join(dst, "mapped.ndjson"), "wb", buffering=1 << 20) as a, \
                open(os.path.join(dst, "exploded.ndjson"), "wb", buffering=1 << 20) as b:
            write_a, write_b = a.write, b.write
            for line in f:
                if not line.strip():
                    continue
                r = loads(line)
                out = _map(r)
                if out is not None:
                    write_a(dumps(out) + b"\n")
                _explode(r, write_b, dumps)
        return
    if chain == "rows-csv":
        with open(src, "rb", buffering=1 << 20) as f, open(dst, "w", encoding="utf-8", newline="") as out:
            # CRLF: with "\n" alone, Python's csv module leaves a field holding a lone "\r" unquoted,
            # which no reader reads back. Compared with Reform's LF rows as parsed CSV.
            writer = csv.writer(out, lineterminator="\r\n")
            writer.writerow(["id", "name", "title", "city", "price"])
            for line in f:
                if not line.strip():
                    continue
                r = loads(line)
                writer.writerow([r["id"], r["name"], r["title"], r["location"]["city"], r["price"]])
        return
    with open(src, "rb", buffering=1 << 20) as f, open(dst, "wb", buffering=1 << 20) as out:
        write = out.write
        if chain == "mapped":
            for record in _mapped(f, loads):
                write(dumps(record) + b"\n")
        elif chain == "exploded":
            for line in f:
                if not line.strip():
                    continue
                _explode(loads(line), write, dumps)
        elif chain == "sorted":
            records = sorted(_mapped(f, loads), key=lambda r: r["price"])  # stable
            seen = set()
            for record in records:
                if record["updated"] in seen:
                    continue
                seen.add(record["updated"])
                write(dumps(record) + b"\n")
        elif chain == "selected":
            for line in f:
                if not line.strip():
                    continue
                r = loads(line)
                agent = r.get("agent")
                price = r.get("price")
                if isinstance(price, (int, float)) and price < 60000 and isinstance(agent, dict) and agent.get("verified") is True:
                    write(dumps(r) + b"\n")
        elif chain == "large-sort":
            records = [record for line in f if line.strip() for record in _exploded(loads(line))]
            records.sort(key=lambda r: r["price"])  # stable
            for record in records:
                write(dumps(record) + b"\n")
        else:
            raise SystemExit("unknown chain %r" % chain)


# ---------------------------------------------------------------- DuckDB
_DUCK_MAPPED = """
    SELECT id, name || ' · ' || location.district AS label, CAST(price AS DOUBLE) AS price,
           CAST(agent.phone AS BIGINT) AS phone, agent.verified AS verified, location.lat AS lat,
           strftime(CAST(updated_at AS TIMESTAMPTZ), '%Y-%m-%dT%H:%M:%SZ') AS updated{extra}
    FROM read_ndjson('{src}', format = 'newline_delimited'{columns})
"""
_DUCK_FILTER = " WHERE price < 60000 AND agent.verified = true AND location.lat >= 31.2"


def duckdb_query(chain, src):
    """The COPY statement's query for one chain."""
    columns = ""
    if chain == "mapped":
        return _DUCK_MAPPED.format(extra="", src=src, columns=columns) + _DUCK_FILTER
    if chain == "sorted":
        inner = _DUCK_MAPPED.format(extra=", row_number() OVER () AS position", src=src, columns=columns) + _DUCK_FILTER
        return (
            "SELECT id, label, price, phone, verified, lat, updated FROM ("
            " SELECT *, row_number() OVER (PARTITION BY updated ORDER BY price, position) AS nth FROM (" + inner + "))"
            " WHERE nth = 1 ORDER BY price, position"
        )
    if chain == "exploded":
        return (
            "SELECT id, unnest(tags) AS tag, price, coalesce(floor, 'unknown') AS floor"
            " FROM read_ndjson('%s', format = 'newline_delimited')" % src
        )
    if chain == "large-sort":
        # Stable: ties in input order, and a record's tags in their order.
        return (
            "SELECT id, tag, price, floor FROM ("
            " SELECT id, unnest(tags) AS tag, generate_subscripts(tags, 1) AS nth, price,"
            " coalesce(floor, 'unknown') AS floor, position FROM ("
            " SELECT *, row_number() OVER () AS position FROM read_ndjson('%s', format = 'newline_delimited')))"
            " ORDER BY price, position, nth" % src
        )
    if chain == "rows-csv":
        return "SELECT id, name, title, location.city AS city, price FROM read_ndjson('%s', format = 'newline_delimited')" % src
    if chain == "selected":
        # Every column of the records kept; DuckDB writes a missing field as null and reads
        # `updated_at` as a timestamp, so run.py compares this chain's records by id.
        return "SELECT * FROM read_ndjson('%s', format = 'newline_delimited') WHERE price < 60000 AND agent.verified = true" % src
    raise SystemExit("unknown chain %r" % chain)


def duckdb_chain(chain, src, dst, threads):
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads = %d" % threads)
    con.execute("SET TimeZone = 'UTC'")
    if chain == "fanned":  # one COPY per output, as a DuckDB user writes two files
        for part in FANNED:
            con.execute("COPY (%s) TO '%s' (FORMAT JSON)" % (duckdb_query(part, src), os.path.join(dst, part + ".ndjson")))
        return
    fmt = "(FORMAT CSV, HEADER)" if chain == "rows-csv" else "(FORMAT JSON)"
    con.execute("COPY (%s) TO '%s' %s" % (duckdb_query(chain, src), dst, fmt))


# ---------------------------------------------------------------- polars
def polars_chain(chain, src, dst, threads):
    """The chain as a polars lazy frame over `scan_ndjson`, with the records' schema given (as a
    user after speed would: inferring it reads records first), so fields no chain reads, such as
    `description`, are skipped."""
    os.environ["POLARS_MAX_THREADS"] = str(threads)  # read when polars is imported
    import polars as pl

    schema = {
        "id": pl.Int64, "name": pl.String, "title": pl.String, "imageUrl": pl.String, "price": pl.Int64,
        "area": pl.Float64, "tags": pl.List(pl.String),
        "location": pl.Struct({"city": pl.String, "district": pl.String, "lat": pl.Float64, "lng": pl.Float64}),
        "agent": pl.Struct({"name": pl.String, "phone": pl.String, "verified": pl.Boolean}),
        "floor": pl.String, "updated_at": pl.String, "on_sale": pl.Boolean,
        "photos": pl.List(pl.Struct({"url": pl.String, "w": pl.Int64, "h": pl.Int64})),
    }
    records = pl.scan_ndjson(src, schema=schema)
    location, agent = pl.col("location").struct, pl.col("agent").struct
    mapped = records.select(
        pl.col("id"),
        (pl.col("name") + " · " + location.field("district")).alias("label"),
        pl.col("price").cast(pl.Float64),
        agent.field("phone").cast(pl.Int64).alias("phone"),
        agent.field("verified").alias("verified"),
        location.field("lat").alias("lat"),
        pl.col("updated_at").str.to_datetime("%Y-%m-%dT%H:%M:%S%z").dt.convert_time_zone("UTC")
        .dt.strftime("%Y-%m-%dT%H:%M:%SZ").alias("updated"),
    ).filter((pl.col("price") < 60000) & pl.col("verified") & (pl.col("lat") >= 31.2))
    exploded = records.select("id", "tags", "price", pl.col("floor").fill_null("unknown")).filter(pl.col("tags").list.len() > 0) \
        .explode("tags").rename({"tags": "tag"})
    if chain == "fanned":  # both sinks in one query plan, which shares the scan
        pl.collect_all([mapped.sink_ndjson(os.path.join(dst, "mapped.ndjson"), lazy=True),
                        exploded.sink_ndjson(os.path.join(dst, "exploded.ndjson"), lazy=True)])
    elif chain == "mapped":
        mapped.sink_ndjson(dst)
    elif chain == "sorted":
        mapped.sort("price", maintain_order=True).unique(subset=["updated"], keep="first", maintain_order=True).sink_ndjson(dst)
    elif chain == "exploded":
        # An empty list explodes to a null row in polars, to no record in the others.
        exploded.sink_ndjson(dst)
    elif chain == "large-sort":
        exploded.sort("price", maintain_order=True).sink_ndjson(dst)
    elif chain == "rows-csv":
        records.select("id", "name", "title", location.field("city").alias("city"), "price").sink_csv(dst)
    elif chain == "selected":
        records.filter((pl.col("price") < 60000) & agent.field("verified")).sink_ndjson(dst)
    else:
        raise SystemExit("unknown chain %r" % chain)


if __name__ == "__main__":
    tool, chain, src, dst = sys.argv[1:5]
    if tool == "python":
        python_chain(chain, src, dst)
    elif tool == "duckdb":
        duckdb_chain(chain, src, dst, int(sys.argv[5]))
    elif tool == "polars":
        polars_chain(chain, src, dst, int(sys.argv[5]))
    else:
        raise SystemExit("usage: peers.py python|duckdb|polars CHAIN IN OUT [THREADS]")
