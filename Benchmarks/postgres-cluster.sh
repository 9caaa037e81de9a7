# Sourced by the PostgreSQL benchmarks: checks for the server's programs and psql, makes $work (a
# temp folder named after $cluster_name) and starts a throwaway cluster in it (initdb, a Unix
# socket there, fsync off for every tool alike; as the postgres user when run as root), stopped
# and removed at exit (KEEP=1 keeps the folder). Sets $bin, $work, $as_owner, PG_URL and q()
# (psql on PG_URL, unaligned, quiet). Needs die().
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -x "$bin/initdb" ] || die "no PostgreSQL server (apt-get install postgresql)"
command -v psql >/dev/null || die "no psql (apt-get install postgresql-client)"

work="$(mktemp -d "${TMPDIR:-/tmp}/${cluster_name:-reform-pg}.XXXXXX")"
as_owner=()
if [ "$(id -u)" = 0 ]; then chown postgres "$work"; as_owner=(runuser -u postgres --); fi
cleanup() {
    "${as_owner[@]}" "$bin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
"${as_owner[@]}" "$bin/initdb" -D "$work/data" -A trust -U postgres --no-sync -E UTF8 --locale=C >/dev/null
"${as_owner[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/server.log" -w \
    -o "-c listen_addresses='' -k $work -c fsync=off -c full_page_writes=off -c synchronous_commit=off" start >/dev/null
export PG_URL="postgresql://postgres@/postgres?host=$work"
q() { psql "$PG_URL" -X -q -t -A -v ON_ERROR_STOP=1 "$@"; }
