#!/usr/bin/env bash
# dlt comparison: N GitHub-like issues (one NDJSON file made by Benchmarks/dlt/generate.py; each
# issue has a user object, 0-4 label objects, timestamps and a nullable body) loaded into
# PostgreSQL, the nested `labels` list going to a child table, by
#
#   reform run issues.yaml --input issues=issues.ndjson --quiet
#
# with an output `{ postgres: ${PG_URL}, table: reform.issues, mode: replace, key: [id],
# child_tables: [labels] }` (reform.issues and reform.issues__labels), against a dlt pipeline
# (Benchmarks/dlt/load_dlt.py: a resource reading the file with orjson, 1,000 records a page,
# write_disposition="replace", dataset dlt_replace: dlt_replace.issues and
# dlt_replace.issues__labels). The upsert variants are Reform's `mode: upsert` and dlt's
# write_disposition="merge" with primary_key="id", each loading into its own tables that already
# hold the same N issues (a re-sync). Every tool loads once untimed before the rounds (tables made,
# dlt's schema and state settled), then the tools take turns each round. Both load one throwaway
# cluster this script starts (initdb in the temp folder, a Unix socket there, fsync off; as the
# postgres user when run as root) and stops at exit. After the first round every tool's tables
# must hold the same issues and the same labels (counts printed; a checksum of the values,
# dlt's labels joined to their issue by _dlt_parent_id, must match too). Peak memory is the
# client's (reform, dlt's python), not the server's.
#
#   Benchmarks/dlt/run.sh [N]        # N issues (default 300000)
#
# Environment: RUNS=3 (best wall time and highest peak RSS are reported), REFORM_BIN=... (skip the
# build), DLT_PYTHON=/tmp/dltvenv/bin/python (a python with dlt and psycopg2; dlt is skipped, saying
# so, when it cannot import them: `pip install dlt psycopg2-binary`), DLT_FORMAT=csv (dlt's loader
# file format; its postgres default is insert_values), SEED=7, KEEP=1 (keep the temp folder).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
default_n=300000
source "$root/Benchmarks/benchmark-arguments.sh"
dlt_python="${DLT_PYTHON:-/tmp/dltvenv/bin/python}"
tools="reform reform-upsert"
if dlt_version="$("$dlt_python" -c 'import dlt, psycopg2; print(dlt.__version__)' 2>/dev/null)"; then
    tools="$tools dlt dlt-merge"
else
    echo "run.sh: dlt skipped: $dlt_python cannot import dlt and psycopg2 (set DLT_PYTHON, or pip install dlt psycopg2-binary)" >&2
fi

cluster_name=reform-dlt
source "$root/Benchmarks/postgres-cluster.sh"

echo "generating $n issues..." >&2
mkdir -p "$work/in" "$work/dlt" "$work/reform"
input="$work/in/issues.ndjson"
python3 "$here/generate.py" "$n" "$input" "${SEED:-7}"

# Reform's pipelines: columns named as dlt names them (user.login is user__login), but for the
# parent key, issue_id, since the child table holds it beside the label's own `id`.
for mode in replace upsert; do
    schema=reform; [ "$mode" = upsert ] && schema=reform_upsert
    cat > "$work/$mode.yaml" <<YAML
reform: 1
name: issues
managers: { issues: {} }
reformers:
  issue:
    keys: { id: issue_id, number: number, title: title, state: state, login: user__login, user_id: user__id,
            labels: labels, comments: comments, created_at: created_at, updated_at: updated_at, body: body }
    map: { id: id, number: number, title: title, state: state, login: user.login, user_id: user.id,
           labels: "labels?", comments: comments, created_at: created_at, updated_at: updated_at, body: body }
runs:
  default:
    outputs:
      - { reform: [issue], postgres: "\${PG_URL}", table: $schema.issues, mode: $mode, key: [id],
          types: { id: int, number: int, user_id: int, comments: int, created_at: date, updated_at: date },
          child_tables: [labels] }
YAML
done

source "$root/Benchmarks/measure.sh"
export DLT_PG_URL="postgresql://postgres:trust@localhost/postgres?host=$work"  # dlt wants a password; trust ignores it
export DLT_DATA_DIR="$work/dlt" DLT_PROJECT_DIR="$work/dlt" RUNTIME__DLTHUB_TELEMETRY=false
run_tool() {  # run_tool NAME: one load; measured when $timed is 1
    local cmd
    case "$1" in
        reform) cmd=("$reform" run "$work/replace.yaml" --input issues="$input" --quiet) ;;
        reform-upsert) cmd=("$reform" run "$work/upsert.yaml" --input issues="$input" --quiet) ;;
        dlt) cmd=("$dlt_python" "$here/load_dlt.py" "$input" dlt_replace replace "$work/dlt") ;;
        dlt-merge) cmd=("$dlt_python" "$here/load_dlt.py" "$input" dlt_merge merge "$work/dlt") ;;
    esac
    if [ "$timed" = 1 ]; then (cd "$work/reform" && measure "$1" "${cmd[@]}"); else (cd "$work/reform" && "${cmd[@]}") || die "$1 failed"; fi
}
# "ISSUES_COUNT ISSUES_MD5 LABELS_COUNT LABELS_MD5" of a tool's tables, from the same columns.
contents() {
    local s key parent labels
    case "$1" in
        reform) s=reform ;; reform-upsert) s=reform_upsert ;; dlt) s=dlt_replace ;; dlt-merge) s=dlt_merge ;;
    esac
    case "$1" in
        reform*)
            key=issue_id
            labels="SELECT count(*) || ' ' || md5(string_agg(ROW(issue_id, _position, id, name, color)::text, E'\\n'
                    ORDER BY issue_id, _position)) FROM $s.issues__labels" ;;
        dlt*)
            key=id
            labels="SELECT count(*) || ' ' || md5(string_agg(ROW(p.id, l._dlt_list_idx, l.id, l.name, l.color)::text, E'\\n'
                    ORDER BY p.id, l._dlt_list_idx)) FROM $s.issues__labels l JOIN $s.issues p ON p._dlt_id = l._dlt_parent_id" ;;
    esac
    parent="SELECT count(*) || ' ' || md5(string_agg(ROW($key, number, title, state, user__login, user__id, comments,
            created_at, updated_at, body)::text, E'\\n' ORDER BY $key)) FROM $s.issues"
    echo "$(q -c "$parent") $(q -c "$labels")"
}

timed=0
for tool in $tools; do echo "warm-up: $tool" >&2; run_tool "$tool"; : > "$work/$tool.times"; done
timed=1
reference=""
for round in $(seq 1 "$runs"); do
    for tool in $tools; do  # interleaved, so background load hits every tool alike
        echo "round $round/$runs: $tool" >&2
        run_tool "$tool"
        if [ "$round" = 1 ]; then
            got="$(contents "$tool")"
            read -r issues _ labels _ <<< "$got"
            echo "  $tool: $issues issues, $labels labels" >&2
            [ "$issues" = "$n" ] || die "$tool's table holds $issues issues, not $n"
            if [ -z "$reference" ]; then reference="$got"
            elif [ "$got" != "$reference" ]; then die "$tool's tables differ from reform's: $got vs $reference"; fi
        fi
    done
done

read -r _ issue_md5 label_count label_md5 <<< "$reference"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo
echo "PostgreSQL load with a child table: $n issues ($(wc -c < "$input" | awk '{ printf "%.0f", $1 / 1e6 }') MB of NDJSON), $label_count labels, best of $runs"
echo "$(nproc) cores; $(q -c 'SHOW server_version') on a Unix socket; dlt ${dlt_version:-skipped}${DLT_FORMAT:+ ($DLT_FORMAT)}; tables identical (issues $issue_md5, labels $label_md5)"
printf '%-14s %9s %11s %9s\n' tool seconds issues/s "peak MiB"
for tool in $tools; do
    read -r s kib < <(best "$tool")
    printf '%-14s %9.3f %11.0f %9.1f\n' "$tool" "$s" "$(awk -v n="$n" -v s="$s" 'BEGIN { print n / s }')" \
        "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')"
done
case "$tools" in *dlt*)
    echo
    for pair in "dlt reform" "dlt-merge reform-upsert"; do
        read -r a b <<< "$pair"
        read -r as ak < <(best "$a"); read -r bs bk < <(best "$b")
        echo "$a / $b: $(ratio "$as" "$bs")x the time, $(ratio "$ak" "$bk")x the peak memory"
    done ;;
esac
[ "$n" -ge 100000 ] || echo "note: N < 100000, start-up costs weigh on these ratios"
