#!/bin/sh
# lavalab.sh - a real LAVA lab (Debian 12's lava-server 2023.01) on this
# machine, for the lava backend's tests. Installs nothing: the packages are
# in `harness/deps.sh test` (make test). Needs root (LAVA's daemons and
# PostgreSQL run as their own users). No systemd is needed.
#
#   lavalab.sh start DIR PORT  start PostgreSQL (the system cluster, if it
#                              is down), gunicorn on 127.0.0.1:PORT, the
#                              scheduler and a worker; create the user
#                              kbench with its token in DIR/token (0600),
#                              the worker kbench-w and two qemu devices
#                              kbench-qemu-01/02 (no_kvm, TCG). Logs, pids
#                              and the worker's dir go in DIR.
#   lavalab.sh wait DIR PORT S wait up to S seconds for the API to answer
#                              and both devices to be Idle on a live worker
#   lavalab.sh stop DIR        stop all it started; no process is left
#
# Only 127.0.0.1 is ever bound or connected to.
set -eu
worker=kbench-w
devices="kbench-qemu-01 kbench-qemu-02"
cache=${KBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}
# Debian's python3 (a pyenv python3 earlier in PATH breaks LAVA)
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

die() { echo "lavalab: $*" >&2; exit 2; }

manage() { lava-server manage "$@"; }

# run "$@" in its own session, in the background; its pid goes in DIR/NAME.pid
daemon() {
	name=$1; shift
	# the pid of the session leader itself (setsid forks when its caller
	# leads a process group, so $! would not be it)
	setsid sh -c 'echo $$ >"$0"; exec "$@"' "$dir/$name.pid" "$@" >"$dir/$name.log" 2>&1 </dev/null &
	i=0
	while [ ! -s "$dir/$name.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}

# the newest cached Debian kernel, for libguestfs's appliance (supermin)
supermin_env() {
	k=$(ls -d "$cache"/kernels/linux-image-*-amd64_*/boot/vmlinuz-* 2>/dev/null | sort | tail -1)
	[ -n "$k" ] || die "no cached Debian kernel under $cache/kernels (kbench fetches one with any run of mainline-stock)"
	root=${k%/boot/*}
	ver=${k##*/vmlinuz-}
	[ -d "$root/lib/modules/$ver" ] || die "$root has no lib/modules/$ver"
	# a private copy, depmod'ed (the cache stays as kbench wrote it)
	mkdir -p "$dir/supermin"
	if [ ! -e "$dir/supermin/lib/modules/$ver/modules.dep" ]; then
		mkdir -p "$dir/supermin/lib/modules"
		cp -a "$root/lib/modules/$ver" "$dir/supermin/lib/modules/"
		depmod -b "$dir/supermin" "$ver"
	fi
	mkdir -p "/etc/lava-server/dispatcher.d/$worker"
	cat >"/etc/lava-server/dispatcher.d/$worker/env.yaml" <<EOF
overrides:
  LC_ALL: C.UTF-8
  LANG: C
  PATH: /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  SUPERMIN_KERNEL: $k
  SUPERMIN_MODULES: $dir/supermin/lib/modules/$ver
  SUPERMIN_KERNEL_VERSION: $ver
  LIBGUESTFS_BACKEND: direct
  LIBGUESTFS_BACKEND_SETTINGS: force_tcg
EOF
}

start() {
	[ "$(id -u)" = 0 ] || die "must run as root (LAVA's daemons and PostgreSQL)"
	for t in lava-server lava-worker gunicorn3 pg_ctlcluster; do
		command -v $t >/dev/null || die "no $t: install with sh harness/deps.sh test"
	done
	mkdir -p "$dir"
	chmod 0755 "$dir"
	if ! pg_ctlcluster 15 main status >/dev/null 2>&1; then
		pg_ctlcluster 15 main start || die "PostgreSQL 15 main did not start"
		touch "$dir/pg-started"
	fi
	if ! su postgres -c "psql -lqt" | cut -d'|' -f1 | grep -qw lavaserver; then
		python3 /usr/share/lava-server/postinst.py --db >"$dir/postinst.log" 2>&1 ||
			die "could not create LAVA's database (see $dir/postinst.log)"
	fi
	manage migrate --noinput >"$dir/migrate.log" 2>&1 || die "migrate failed (see $dir/migrate.log)"
	daemon gunicorn gunicorn3 lava_server.wsgi -u lavaserver -g lavaserver \
		--worker-class eventlet --workers 2 --bind "127.0.0.1:$port" --timeout 60
	daemon scheduler lava-server manage lava-scheduler --level INFO
	# user, token, worker, devices (idempotent: a second start reuses them)
	manage users add --superuser --staff --passwd "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" kbench \
		>/dev/null 2>&1 || true
	umask 077
	manage tokens add --user kbench --description kbench-tests >"$dir/token" ||
		die "could not create a token"
	chmod 0600 "$dir/token"
	manage workers add "$worker" >/dev/null 2>&1 || true
	manage shell -c "from lava_scheduler_app.models import Worker; print(Worker.objects.get(hostname='$worker').token)" \
		>"$dir/worker-token" || die "no token for worker $worker"
	chmod 0600 "$dir/worker-token"
	umask 022
	manage device-types add qemu >/dev/null 2>&1 || true
	for d in $devices; do
		manage devices add --device-type qemu --worker "$worker" "$d" >/dev/null 2>&1 || true
		cat >"/etc/lava-server/dispatcher-config/devices/$d.jinja2" <<EOF
{% extends 'qemu.jinja2' %}
{% set no_kvm = True %}
{% set mac_addr = '52:54:00:12:34:5${d##*0}' %}
{% set memory = 1024 %}
EOF
		manage devices update --health UNKNOWN "$d" >/dev/null 2>&1 || true
	done
	supermin_env
	mkdir -p "$dir/worker"
	daemon worker lava-worker --name "$worker" --url "http://127.0.0.1:$port/" \
		--token-file "$dir/worker-token" --worker-dir "$dir/worker" --level INFO
	echo "lavalab: started on http://127.0.0.1:$port/ (token in $dir/token)"
}

# GET an API path with the token (from a file: never in argv)
api() {
	python3 - "$dir/token" "http://127.0.0.1:$port/api/v0.2/$1" <<'EOF'
import sys, urllib.request
tok = open(sys.argv[1]).read().strip()
req = urllib.request.Request(sys.argv[2], headers={"Authorization": "Token " + tok})
print(urllib.request.urlopen(req, timeout=10).read().decode())
EOF
}

wait_ready() {
	s=$1
	end=$(( $(date +%s) + s ))
	while [ "$(date +%s)" -lt "$end" ]; do
		out=$(api "devices/?hostname__startswith=kbench-qemu" 2>/dev/null) || out=
		n=$(printf '%s' "$out" | python3 -c '
import sys, json
try: r = json.load(sys.stdin)["results"]
except Exception: r = []
print(sum(1 for d in r if d.get("state") == "Idle" and d.get("health") in ("Good", "Unknown")))' 2>/dev/null || echo 0)
		w=$(api "workers/$worker/" 2>/dev/null | python3 -c '
import sys, json
try: print(json.load(sys.stdin).get("state"))
except Exception: print("?")' 2>/dev/null || echo '?')
		[ "$n" = 2 ] && [ "$w" = Online ] && { echo "lavalab: ready"; return 0; }
		sleep 2
	done
	die "not ready after ${s}s (see $dir/*.log)"
}

stop() {
	for n in worker scheduler gunicorn; do
		[ -f "$dir/$n.pid" ] || continue
		p=$(cat "$dir/$n.pid")
		# the whole session: gunicorn's workers, lava-run, QEMU (procps's
		# kill: dash's builtin takes no process group)
		/bin/kill -s TERM -- "-$p" 2>/dev/null || true
	done
	i=0
	for n in worker scheduler gunicorn; do
		[ -f "$dir/$n.pid" ] || continue
		p=$(cat "$dir/$n.pid")
		while /bin/kill -s 0 -- "-$p" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
		/bin/kill -s KILL -- "-$p" 2>/dev/null || true
		rm -f "$dir/$n.pid"
	done
	if [ -f "$dir/pg-started" ]; then
		pg_ctlcluster 15 main stop || true
		rm -f "$dir/pg-started"
	fi
	echo "lavalab: stopped"
}

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: lavalab.sh start|wait|stop DIR [PORT [SECONDS]]"
case $cmd in
start) port=${3:?PORT}; start ;;
wait) port=${3:?PORT}; wait_ready "${4:-120}" ;;
stop) stop ;;
*) die "unknown command $cmd" ;;
esac
