#!/bin/sh
# The LAVA lab for the lava backend's tests (tests/tools/lavalab.sh): Debian
# 12's lava-server 2023.01 started by hand (no systemd) on 127.0.0.1 only,
# with a worker and two qemu devices (TCG).
#  - it starts and is ready: the API answers, the worker is Online and both
#    devices Idle; the token file is mode 0600;
#  - the API takes the token and refuses a wrong one (401/403), and a dead
#    port refuses the connection;
#  - stop leaves no process of the lab.
# Not here yet: kbench's lava backend itself (issue #20: runs through the
# lab, campaign, --resume, Ctrl-C, panics).
. "$(dirname "$0")/../lib.sh"
start=$(date +%s)
[ "$(id -u)" = 0 ] || skip "not root: LAVA's daemons and PostgreSQL need root (CI runs as root)"
need_tool lava-server "the LAVA lab"
need_tool lava-worker "the LAVA lab's worker"
need_tool gunicorn3 "the LAVA lab's API server"
need_tool pg_ctlcluster "the LAVA lab's database"
need_tool python3 "the API checks"
lab="$top/tests/tools/lavalab.sh"
port=$((20000 + $$ % 20000))
dir="$tmp/lab"
trap 'sh "$lab" stop "$dir" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
# LAVA's daemons already running (another lab): not this test's leftovers.
# gunicorn renames itself and the scheduler's command line names neither
# the lab's dir nor its port, so they are found by name.
daemons='gunicorn: (master|worker) \[lava_server|lava-server manage lava-scheduler|lava-worker'
before=$(pgrep -f "$daemons" | sort)
sh "$lab" start "$dir" "$port" || { bad "the LAVA lab did not start"; finish; }
if sh "$lab" wait "$dir" "$port" 600; then
	ok "LAVA lab ready after $(($(date +%s) - start)) s"
else
	bad "LAVA lab not ready"
	tail -n 20 "$dir"/*.log
	finish
fi
mode=$(stat -c %a "$dir/token")
[ "$mode" = 600 ] && ok "token file mode 600" || bad "token file mode $mode"

# status TOKENFILE URL: the HTTP status of a GET (the token from a file)
status() {
	python3 - "$1" "$2" <<'PY'
import sys, urllib.request, urllib.error
tok = open(sys.argv[1]).read().strip()
req = urllib.request.Request(sys.argv[2], headers={"Authorization": "Token " + tok})
try:
    print(urllib.request.urlopen(req, timeout=20).status)
except urllib.error.HTTPError as e:
    print(e.code)
except Exception as e:
    print("refused")
PY
}
api="http://127.0.0.1:$port/api/v0.2"
s=$(status "$dir/token" "$api/jobs/")
[ "$s" = 200 ] && ok "API with the token: 200" || bad "API with the token: $s"
echo not-the-token >"$tmp/wrong"
s=$(status "$tmp/wrong" "$api/jobs/")
case $s in 401|403) ok "API with a wrong token: $s" ;; *) bad "API with a wrong token: $s" ;; esac
s=$(status "$dir/token" "http://127.0.0.1:$((port + 1))/api/v0.2/jobs/")
[ "$s" = refused ] && ok "a dead port: refused" || bad "a dead port: $s"

sh "$lab" stop "$dir" || bad "lavalab.sh stop failed"
sleep 1
left=$(pgrep -f "$daemons" | sort | { [ -n "$before" ] && grep -vxF "$before" || cat; }; pgrep -f "$dir|127.0.0.1:$port")
[ -z "$left" ] && ok "stop left no process" || bad "left running: $left"
echo "lava_lab: $(($(date +%s) - start)) s"
finish
