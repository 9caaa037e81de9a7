# Sourced by the benchmark scripts that talk to the loopback test server (Tests/Server):
# `start_test_server FOLDER [SERVER OPTIONS...]` starts it with ${PYTHON:-python3}, its output in
# FOLDER, and sets $server_pid and $port; `stop_test_server` stops it (call it from the script's
# EXIT trap). Needs $root and die().
server_pid=""
start_test_server() {
    local folder="$1" word1 word2
    shift
    "${PYTHON:-python3}" "$root/Tests/Server/reform_test_server.py" --port 0 --quiet "$@" >"$folder/server.out" 2>"$folder/server.err" &
    server_pid=$!
    for _ in $(seq 100); do
        [ -s "$folder/server.out" ] && break
        kill -0 "$server_pid" 2>/dev/null || { cat "$folder/server.err" >&2; die "the test server did not start"; }
        sleep 0.05
    done
    read -r word1 word2 port <"$folder/server.out" || true
    [ "$word1 $word2" = "listening on" ] && [ -n "$port" ] || die "the test server did not report its port"
}
stop_test_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
}
