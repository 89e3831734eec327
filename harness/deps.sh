#!/bin/sh
# Install the Debian packages kbench needs, only those missing.
# Called by `make deps` (and so by `make bench` and `make test`).
# The last line is what building kernel variants from source needs.
# `deps.sh test` and `deps.sh fuzz` add the packages of those targets.
# The package of every workload's tool (.tools in workloads/*.c) and of the
# harness's (run_host_tools, harness/run/run.c) must be in pkgs:
# tests/unit/test_workloads.c checks.
set -eu
pkgs="build-essential make gcc qemu-system-x86 dbench rt-tests busybox-static
libjson-c-dev libinih-dev libgsl-dev libcmocka-dev libssl-dev libsqlite3-dev libmd-dev
libcurl4-openssl-dev libyaml-dev
kmod cpio e2fsprogs xz-utils dpkg-dev apt debian-archive-keyring
python3 python3-jsonschema
flex bison bc libelf-dev patch ccache qemu-utils"
# `deps.sh test`: also what the tests use to check kbench's output
if [ "${1:-}" = test ]; then
	# xmllint (JUnit), pgrep (no QEMU left), PIL (screenshot), chromium,
	# yamllint/yaml/systemd-analyze (ci_files), sqlite3 (history), clang
	# with libFuzzer (fuzz_regress), mmdebstrap and ssh (ssh_backend's lab
	# machine, tests/tools/labvm.sh), LAVA with PostgreSQL (lava_lab,
	# tests/tools/lavalab.sh), git (kbench bisect's and
	# incremental_build's scratch histories)
	pkgs="$pkgs libxml2-utils procps python3-pil chromium yamllint python3-yaml sqlite3 systemd
clang-14 libclang-rt-14-dev mmdebstrap openssh-client
postgresql lava-server lava-dispatcher lavacli git"
fi
# `deps.sh fuzz`: Debian's clang with libFuzzer, for `make fuzz` only
if [ "${1:-}" = fuzz ]; then
	pkgs="$pkgs clang-14 libclang-rt-14-dev"
fi
missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "deps: all $(echo $pkgs | wc -w) packages present"
	exit 0
fi
echo "deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
	SUDO=sudo
	command -v sudo >/dev/null || { echo "deps: not root and no sudo: install as root:$missing" >&2; exit 2; }
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
# refresh the lists when they are older than a day or absent
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
	$SUDO apt-get update -q
fi
# lava-server's postinst creates its database only if PostgreSQL runs, and
# no systemd starts it: install PostgreSQL first and start its cluster.
case " $missing " in *" lava-server "*)
	$SUDO apt-get install -y -q --no-install-recommends postgresql
	if ! $SUDO pg_ctlcluster 15 main status >/dev/null 2>&1; then
		$SUDO pg_ctlcluster 15 main start
		pg_started=1
	fi ;;
esac
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
# leave PostgreSQL as it was (tests/tools/lavalab.sh starts it when needed)
if [ -n "${pg_started:-}" ]; then $SUDO pg_ctlcluster 15 main stop; fi
