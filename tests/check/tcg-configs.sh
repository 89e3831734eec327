# shellcheck shell=sh
# Sourced by the TCG studies (boot-oops.sh, text-poke.sh).
# check_tcg_configs QEMU CONFIGS [-L DIR ...]: every THREAD:CPU of CONFIGS
# (-accel tcg,thread=THREAD -cpu CPU) checked against QEMU's own list of
# CPU models before the first boot: a typo in the last one must not cost
# the hours the others take. Calls the caller's die() on the first bad one.
check_tcg_configs() {
	_q=$1 _cs=$2
	shift 2
	_cpus=$("$_q" "$@" -cpu help 2>/dev/null | sed -n '/^Recognized/q; s/^x86  *\([^ ]*\).*/\1/p')
	[ -n "$_cs" ] || die "CONFIGS is empty"
	for _c in $_cs; do
		case $_c in
		multi:* | single:*) ;;
		*) die "configuration '$_c' is not THREAD:CPU with THREAD multi or single (CONFIGS=\"multi:max single:max multi:qemu64\")" ;;
		esac
		_cpu=${_c#*:}
		case $_cpu in
		'' | [!A-Za-z0-9]* | *[!A-Za-z0-9._,+=-]*) die "configuration '$_c': '$_cpu' is not a QEMU CPU model (max, qemu64, Skylake-Client-v4, max,-la57)" ;;
		esac
		_model=${_cpu%%,*}
		if [ -n "$_cpus" ] && ! printf '%s\n' "$_cpus" | grep -qxF -- "$_model"; then
			die "configuration '$_c': this QEMU has no CPU model '$_model' ($_q -cpu help)"
		fi
	done
}
