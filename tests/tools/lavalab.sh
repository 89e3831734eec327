#!/bin/sh
# lavalab.sh - a real LAVA lab (Debian 12's lava-server and lava-dispatcher
# 2023.01) on this machine, for kbench's lava backend and its tests; no
# systemd needed (docs/lab.md, "A LAVA lab on one machine").
#
#   lavalab.sh start DIR PORT  a PostgreSQL cluster of its own in DIR (unix
#                              socket only), LAVA's web API (gunicorn) on
#                              127.0.0.1:PORT, its event publisher
#                              (PORT+2 to PORT+4), its scheduler and a worker,
#                              a user "kbench" whose token is DIR/token
#                              (mode 0600), and two qemu devices (TCG:
#                              no_kvm) named qemu-01 and qemu-02
#   lavalab.sh wait DIR PORT S wait up to S seconds for the worker to be
#                              online and both devices idle
#   lavalab.sh stop DIR        stop everything start started (no process
#                              is left); DIR stays for its logs (DIR/log)
#   lavalab.sh health DIR DEVICE HEALTH  set a device's health as an admin
#                              would (Maintenance: no new job goes to it)
# Each device carries a tag of its own name (kbench pins jobs by it).
#
# Needs root (the worker's env.yaml goes under /etc/lava-server; PostgreSQL
# runs as its own user). It installs nothing: `sh harness/deps.sh test` installs lava-server,
# lava-dispatcher, lavacli and postgresql. Everything LAVA keeps is in DIR
# (database, job logs, device dictionaries) but the worker's env.yaml
# (/etc/lava-server/dispatcher.d/kbench-lab-PORT, removed by stop) and what
# the dispatcher writes per job under /var/lib/lava/dispatcher/tmp/JOB. The
# worker builds a job's overlay disk with libguestfs, which needs a host
# kernel: the cached Debian kernel of kbench's mainline-stock variant
# (`kbench fetch mainline-stock`), or KBENCH_LAB_KERNEL_DIR (a directory
# with boot/vmlinuz-VER and lib/modules/VER). Only 127.0.0.1 is used.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
# the worker's configuration directory: LAVA 2023.01 reads env.yaml only
# from /etc/lava-server/dispatcher.d/WORKER (stop removes it)
etc_dispatcher=/etc/lava-server/dispatcher.d
devices="qemu-01 qemu-02"
cache=${KBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}/lavalab
# Debian's python3 and LAVA's tools first: a pyenv python3 breaks LAVA
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export PATH

die() { echo "lavalab: $*" >&2; exit 2; }
say() { echo "lavalab: $*" >&2; }

# A command as the PostgreSQL owner: postgres when root (initdb refuses
# root), else ourselves.
as_pg() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_bin() {
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	[ -n "$d" ] && [ -x "$d/initdb" ] || die "no PostgreSQL server (sh harness/deps.sh test installs postgresql)"
	echo "$d"
}

check_dir() {
	case "$1" in
	/*) ;;
	*) die "DIR must be an absolute path, got '$1'" ;;
	esac
	case "$1" in
	*[!A-Za-z0-9/._-]*) die "DIR '$1': only letters, digits, '/', '.', '_' and '-'" ;;
	esac
	# the socket path DIR/pg/.s.PGSQL.5432 must fit a sockaddr_un
	[ ${#1} -le 80 ] || die "DIR '$1' is too long for PostgreSQL's socket (80 characters at most)"
}

# The environment every LAVA command of this lab runs with: its database,
# and its paths in DIR instead of /etc/lava-server and /var/lib/lava-server.
# LAVA_*SETTINGS_* come after /etc/lava-server/settings.d, where
# lava-server's postinst names the system cluster's database.
lab_env() {
	dir=$1
	export LAVA_YAML_SETTINGS_DATABASES="{default: {ENGINE: django.db.backends.postgresql, NAME: lavaserver, USER: lavaserver, HOST: '$dir/pg'}}"
	export LAVA_SETTINGS_SECRET_KEY="$(cat "$dir/secret_key")"
	export ALLOWED_HOSTS=127.0.0.1,localhost
	export LAVA_SETTINGS_MEDIA_ROOT="$dir/media/"
	export LAVA_SETTINGS_DEVICES_PATH="$dir/devices"
	export LAVA_SETTINGS_HEALTH_CHECKS_PATH="$dir/health-checks"
	export LAVA_SETTINGS_DJANGO_LOGFILE="$dir/log/django.log"
	export INSTANCE_NAME=kbench-lab
	# events, as a production lab has them (lava-publisher): the scheduler
	# wakes on a submitted job or a device gone idle, the worker on a job
	# scheduled or cancelled for it, instead of polling every 20 s (a third
	# of a job's time here was queueing). Every process that changes a job
	# or a device sends its event to the publisher's PULL socket on PORT+4.
	if [ -s "$dir/run/port" ]; then
		export LAVA_YAML_SETTINGS_EVENT_NOTIFICATION=true
		export LAVA_SETTINGS_INTERNAL_EVENT_SOCKET="tcp://127.0.0.1:$(($(cat "$dir/run/port") + 4))"
		export LAVA_SETTINGS_EVENT_SOCKET="tcp://127.0.0.1:$(($(cat "$dir/run/port") + 2))"
	fi
}

# Start "$@" in a session of its own (stop kills that group), output to LOG,
# its pid to PIDFILE: the session leader's own, written by itself (setsid
# forks when its caller leads a process group, and then $! is not it).
spawn() {
	pidfile=$1 log=$2
	shift 2
	setsid sh -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@" </dev/null >>"$log" 2>&1 &
	i=0
	while [ ! -s "$pidfile" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	[ -s "$pidfile" ] || die "$(basename "$pidfile" .pid) did not start (log: $log)"
}

# The host kernel libguestfs boots to build overlays: VMLINUZ MODDIR VER
guestfs_kernel() {
	kd=${KBENCH_LAB_KERNEL_DIR:-}
	if [ -z "$kd" ]; then
		[ -x "$top/kbench" ] || die "no $top/kbench (make) to fetch mainline-stock's kernel"
		out=$("$top/kbench" fetch mainline-stock) || die "kbench fetch mainline-stock failed"
		kd=${out##* in }
	fi
	vmlinuz=$(ls "$kd"/boot/vmlinuz-* 2>/dev/null | head -1)
	[ -n "$vmlinuz" ] || die "no boot/vmlinuz-* in '$kd'"
	ver=${vmlinuz##*/vmlinuz-}
	mods=$kd/lib/modules/$ver
	[ -d "$mods" ] || die "no lib/modules/$ver in '$kd'"
	# supermin needs modules.dep; a package's modules may come without one
	# (depmod runs at install time): then a depmod'ed copy in DIR
	if [ ! -e "$mods/modules.dep" ]; then
		mkdir -p "$dir/supermin/lib/modules"
		cp -a "$mods" "$dir/supermin/lib/modules/"
		depmod -b "$dir/supermin" "$ver" || die "depmod of $mods failed"
		mods=$dir/supermin/lib/modules/$ver
	fi
	echo "$vmlinuz $mods $ver"
}

write_config() {
	dir=$1 port=$2
	gk=$(guestfs_kernel) || exit 2
	# shellcheck disable=SC2086
	set -- $gk
	mkdir -p "$dir/devices" "$dir/health-checks" "$dir/media" "$dir/log" "$dir/run" "$dir/worker"
	[ ! -e "$etc_dispatcher/$worker" ] || die "$etc_dispatcher/$worker exists: another lab on port $port?"
	mkdir -p "$etc_dispatcher/$worker" "$cache/guestfs"
	echo "$worker" >"$dir/run/worker_name"
	# libguestfs (overlay disks) on TCG with kbench's cached kernel; its
	# appliance (about a minute to build) cached in kbench's cache, not
	# in /var/tmp
	cat >"$etc_dispatcher/$worker/env.yaml" <<EOF
purge: true
overrides:
  LC_ALL: C.UTF-8
  LANG: C
  PATH: /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  SUPERMIN_KERNEL: $1
  SUPERMIN_MODULES: $2
  SUPERMIN_KERNEL_VERSION: $3
  LIBGUESTFS_BACKEND: direct
  LIBGUESTFS_BACKEND_SETTINGS: force_tcg
  LIBGUESTFS_CACHEDIR: $cache/guestfs
EOF
	for d in $devices; do
		cat >"$dir/devices/$d.jinja2" <<EOF
{% extends 'qemu.jinja2' %}
{% set no_kvm = True %}
{% set mac_addr = '52:54:00:12:34:$(echo "$d" | tr -dc 0-9 | tail -c 2)' %}
{% set memory = 1024 %}
EOF
	done
}

db_init() {
	dir=$1 bin=$2
	mkdir -p "$dir/pg"
	[ "$(id -u)" = 0 ] && chown postgres "$dir/pg"
	as_pg "$bin/initdb" -D "$dir/pg/data" -U postgres -A trust --no-sync >"$dir/log/initdb.log" 2>&1 ||
		{ tail -5 "$dir/log/initdb.log" >&2; die "initdb failed (log: $dir/log/initdb.log)"; }
	as_pg "$bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/postgresql.log" -w -t 60 \
		-o "-c listen_addresses= -k $dir/pg -c fsync=off -c synchronous_commit=off" start >/dev/null ||
		{ tail -5 "$dir/pg/postgresql.log" >&2; die "PostgreSQL did not start (log: $dir/pg/postgresql.log)"; }
	as_pg "$bin/psql" -q -h "$dir/pg" -U postgres -d postgres \
		-c "CREATE ROLE lavaserver LOGIN" -c "CREATE DATABASE lavaserver OWNER lavaserver" >/dev/null ||
		die "cannot create LAVA's database"
}

# users, token, worker, device type and devices
lab_objects() {
	dir=$1 port=$2
	m="lava-server manage"
	bin=$(cat "$dir/run/pg_bin")
	# LAVA's empty database, migrated once per lava-server and PostgreSQL
	# version (about 40 s) and then restored from kbench's cache (seconds)
	key=$(dpkg-query -W -f '${Version}' lava-server)-$(basename "$(dirname "$bin")")
	dump=$cache/db-$(echo "$key" | tr -c 'A-Za-z0-9.\n-' _).sql
	if [ -s "$dump" ]; then
		as_pg "$bin/psql" -q -v ON_ERROR_STOP=1 -h "$dir/pg" -U postgres -d lavaserver \
			<"$dump" >"$dir/log/migrate.log" 2>&1 ||
			{ tail -5 "$dir/log/migrate.log" >&2; die "cannot restore LAVA's database from $dump"; }
	else
		$m migrate --noinput >"$dir/log/migrate.log" 2>&1 ||
			{ tail -20 "$dir/log/migrate.log" >&2; die "LAVA's database migration failed (log: $dir/log/migrate.log)"; }
		mkdir -p "$cache"
		as_pg "$bin/pg_dump" -h "$dir/pg" -U postgres lavaserver >"$dump.tmp" && mv "$dump.tmp" "$dump"
	fi
	# job ids of their own (PORT * 1000 on): the dispatcher's directories
	# under /var/lib/lava/dispatcher/tmp are named by job id only
	as_pg "$bin/psql" -q -h "$dir/pg" -U postgres -d lavaserver \
		-c "ALTER SEQUENCE lava_scheduler_app_testjob_id_seq RESTART WITH $((port * 1000))" >/dev/null ||
		die "cannot set the job id sequence"
	# the user, its token, the worker, the device type and the devices in
	# one Django start (each `lava-server manage` command costs seconds);
	# the tokens go to files only (mode 0600), never to argv or output
	(umask 077; LAB_DIR=$dir LAB_WORKER=$worker LAB_DEVICES=$devices $m shell -c '
import os, secrets
from django.contrib.auth.models import User
from linaro_django_xmlrpc.models import AuthToken
from lava_scheduler_app.models import Device, DeviceType, Tag, Worker
d, wname = os.environ["LAB_DIR"], os.environ["LAB_WORKER"]
devs = os.environ["LAB_DEVICES"].split()
u = User.objects.create_superuser("kbench", "", secrets.token_urlsafe(18))
t = AuthToken.objects.create(user=u, description="kbench lab")
w = Worker.objects.create(hostname=wname, description="kbench lab worker",
                          health=Worker.HEALTH_ACTIVE)
dt = DeviceType.objects.create(name="qemu")
for n in devs:
    dev = Device.objects.create(hostname=n, device_type=dt, state=Device.STATE_IDLE,
                                health=Device.HEALTH_GOOD, worker_host=w)
    dev.tags.add(Tag.objects.create(name=n))  # its own tag: kbench pins jobs by it
open(d + "/token.tmp", "w").write(t.secret)
open(d + "/worker.token", "w").write(w.token)
' >"$dir/log/objects.log" 2>&1) ||
		{ tail -5 "$dir/log/objects.log" >&2; die "cannot make LAVA's user, worker and devices (log: $dir/log/objects.log)"; }
	mv "$dir/token.tmp" "$dir/token"
}

start() {
	dir=$1 port=$2
	check_dir "$dir"
	case "$port" in *[!0-9]* | '') die "PORT must be a number, got '$port'" ;; esac
	[ "$(id -u)" = 0 ] || die "must run as root (the worker's env.yaml goes under /etc/lava-server)"
	worker=kbench-lab-$port
	command -v lava-server >/dev/null && command -v lava-worker >/dev/null ||
		die "no lava-server or lava-worker (sh harness/deps.sh test installs them)"
	[ ! -e "$dir/run/started" ] || die "a lab already runs in '$dir' (lavalab.sh stop $dir)"
	bin=$(pg_bin)
	t0=$(date +%s)
	mkdir -p "$dir" && chmod 755 "$dir"
	if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$dir"; then
		die "PostgreSQL's user cannot reach '$dir': a parent directory is not searchable (chmod o+x it)"
	fi
	write_config "$dir" "$port"
	: >"$dir/run/started"
	echo "$port" >"$dir/run/port"
	(umask 077; head -c 48 /dev/urandom | base64 | tr -d '\n' >"$dir/secret_key")
	lab_env "$dir"
	echo "$bin" >"$dir/run/pg_bin"
	db_init "$dir" "$bin"
	lab_objects "$dir" "$port"
	t1=$(date +%s)
	cd /
	spawn "$dir/run/gunicorn.pid" "$dir/log/gunicorn.out" gunicorn3 lava_server.wsgi \
		--bind "127.0.0.1:$port" --workers 2 --worker-class eventlet --timeout 60 \
		--log-level INFO --log-file "$dir/log/gunicorn.log"
	# the publisher: events in on PORT+4, out to the scheduler (zmq) on
	# PORT+2 and to the worker (websocket) on PORT+3
	spawn "$dir/run/publisher.pid" "$dir/log/publisher.out" lava-server manage lava-publisher \
		--host 127.0.0.1 --port $((port + 3)) --level INFO --log-file "$dir/log/publisher.log"
	spawn "$dir/run/scheduler.pid" "$dir/log/scheduler.out" lava-server manage lava-scheduler \
		--event-url "tcp://127.0.0.1:$((port + 2))" --level INFO --log-file "$dir/log/scheduler.log"
	# a ping every 2 s (LAVA's default 20): the worker sees a job's end
	# and reports it sooner; a job's start and cancel come as events
	spawn "$dir/run/worker.pid" "$dir/log/worker.out" lava-worker --name "$worker" \
		--url "http://127.0.0.1:$port/" --ws-url "http://127.0.0.1:$((port + 3))/ws/" \
		--ping-interval 2 --token-file "$dir/worker.token" \
		--worker-dir "$dir/worker" --level INFO --log-file "$dir/log/worker.log"
	say "started in $(($(date +%s) - t0)) s (database and objects $((t1 - t0)) s): http://127.0.0.1:$port/, token in $dir/token"
}

# GET PATH from the lab's API with the token; prints the body
api_get() {
	python3 - "$@" <<'EOF'
import json, sys, urllib.request
port, path, tokfile = sys.argv[1:4]
req = urllib.request.Request("http://127.0.0.1:%s%s" % (port, path))
req.add_header("Authorization", "Token " + open(tokfile).read().strip())
print(urllib.request.urlopen(req, timeout=10).read().decode())
EOF
}

wait_ready() {
	dir=$1 port=$2 secs=$3
	worker=$(cat "$dir/run/worker_name") || die "no lab started in '$dir'"
	t0=$(date +%s)
	end=$((t0 + secs))
	while [ "$(date +%s)" -lt "$end" ]; do
		for f in gunicorn publisher scheduler worker; do
			kill -0 "$(cat "$dir/run/$f.pid")" 2>/dev/null ||
				die "LAVA's $f ended (log: $dir/log/$f.out, $dir/log/$f.log)"
		done
		if api_get "$port" "/api/v0.2/devices/?worker=$worker" "$dir/token" 2>/dev/null |
			python3 -c 'import json, sys
d = json.load(sys.stdin)["results"]
ok = [x for x in d if x["state"] == "Idle" and x["health"] in ("Good", "Unknown")]
sys.exit(0 if len(d) == 2 and len(ok) == 2 else 1)' 2>/dev/null &&
			api_get "$port" "/api/v0.2/workers/$worker/" "$dir/token" 2>/dev/null |
			python3 -c 'import json, sys
sys.exit(0 if json.load(sys.stdin)["state"] == "Online" else 1)' 2>/dev/null; then
			say "ready in $(($(date +%s) - t0)) s"
			return 0
		fi
		sleep 1
	done
	die "not ready within $secs s (logs: $dir/log)"
}

# TERM the process group of PIDFILE's process (its children: gunicorn's
# workers, a job's lava-run and QEMU), KILL after 20 s. (dash's kill takes
# a group as "-s SIG -- -PGID", not as "-SIG -- -PGID".)
stop_one() {
	f=$1
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	kill -s TERM -- "-$pid" 2>/dev/null || true
	i=0
	while { kill -s 0 -- "-$pid" || kill -s 0 "$pid"; } 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if { kill -s 0 -- "-$pid" || kill -s 0 "$pid"; } 2>/dev/null; then
		say "$(basename "$f" .pid) did not end on SIGTERM in 20 s: SIGKILL"
		kill -s KILL -- "-$pid" 2>/dev/null || kill -s KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$f"
}

stop() {
	dir=$1
	check_dir "$dir"
	for f in worker scheduler publisher gunicorn; do stop_one "$dir/run/$f.pid"; done
	if [ -f "$dir/run/pg_bin" ] && [ -f "$dir/pg/data/postmaster.pid" ]; then
		as_pg "$(cat "$dir/run/pg_bin")/pg_ctl" -D "$dir/pg/data" -m fast -w -t 30 stop >/dev/null ||
			say "PostgreSQL in $dir/pg did not stop"
	fi
	if [ -f "$dir/run/worker_name" ]; then
		rm -rf "${etc_dispatcher:?}/$(cat "$dir/run/worker_name")"
		rm -f "$dir/run/worker_name"
	fi
	rm -f "$dir/run/started"
}

# a device's health, as a lab admin sets it (Maintenance: LAVA schedules
# no new job on it, a running one finishes)
health() {
	dir=$1 device=$2 health=$3
	case "$health" in Good | Maintenance | Bad | Retired | Unknown) ;;
	*) die "HEALTH must be Good, Maintenance, Bad, Retired or Unknown, got '$health'" ;;
	esac
	case "$device" in *[!A-Za-z0-9._-]* | '') die "bad device name '$device'" ;; esac
	lab_env "$dir"
	LAB_DEVICE=$device LAB_HEALTH=$health lava-server manage shell -c '
import os
from lava_scheduler_app.models import Device
d = Device.objects.get(hostname=os.environ["LAB_DEVICE"])
d.health = getattr(Device, "HEALTH_" + os.environ["LAB_HEALTH"].upper())
d.save()
' >>"$dir/log/health.log" 2>&1 || die "cannot set $device's health (log: $dir/log/health.log)"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
start) [ $# = 2 ] || die "usage: lavalab.sh start DIR PORT"; start "$1" "$2" ;;
wait) [ $# = 3 ] || die "usage: lavalab.sh wait DIR PORT SECS"; wait_ready "$1" "$2" "$3" ;;
stop) [ $# = 1 ] || die "usage: lavalab.sh stop DIR"; stop "$1" ;;
health) [ $# = 3 ] || die "usage: lavalab.sh health DIR DEVICE HEALTH"; health "$1" "$2" "$3" ;;
*) die "usage: lavalab.sh start DIR PORT | wait DIR PORT SECS | stop DIR | health DIR DEVICE HEALTH" ;;
esac
