# A fake kernel source tree for tests that must not build a kernel
# (sourced; kconfig_cache.sh, cache_locks.sh). fake_ksrc HOME SRC makes
# SRC look like a Linux tree to kbench (rtmutex.c, a merge_config.sh that
# appends the fragments) and HOME hold the test-only variant "fake" (base
# tinyconfig plus the fragment "fake", with what kbench's guest needs,
# harness/kernel/needs.c, or the build is refused after the config step).
# The caller writes SRC/Makefile: its make is what the test pretends.
fake_ksrc() {
	mkdir -p "$1/kernels" "$1/configs/kernel" "$2/kernel/locking" "$2/scripts/kconfig"
	: >"$2/kernel/locking/rtmutex.c"
	printf '%s\n' 'out=$3 base=$4; shift 4' 'cat "$@" >>"$base"' >"$2/scripts/kconfig/merge_config.sh"
	printf 'CONFIG_KBENCH_FAKE=y\nCONFIG_VIRTIO_PCI=y\nCONFIG_VIRTIO_CONSOLE=y\nCONFIG_BLK_DEV_INITRD=y\nCONFIG_DEVTMPFS=y\nCONFIG_VIRTIO_BLK=y\nCONFIG_EXT4_FS=y\n' \
		>"$1/configs/kernel/fake.config"
	printf '[variant]\nname = fake\nsource = build\nbase = tinyconfig\nconfigs = fake\npatches =\ntest_only = true\n' \
		>"$1/kernels/fake.ini"
}
