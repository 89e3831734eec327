/* targetcfg.h - a kernel config made for a remote machine from the one it
 * runs (ktest's and localmodconfig's start): `kbench target-config`, and a
 * target file's kernel_config = localyes, which makes a source-built
 * variant's base that config in one step. */
#ifndef KBENCH_TARGETCFG_H
#define KBENCH_TARGETCFG_H

#include <stddef.h>
#include "core/config.h"

/* Target NAME's running config (its release into REL), checked as
 * untrusted input, brought up to Debian's 6.12 tree and, with LOCALYES,
 * trimmed to its loaded modules built in; written whole to OUT or not at
 * all. 0, or -1 after an error. */
int target_config_make(const char *name, int localyes, const char *out, char *rel, size_t rlen);

/* For target NAME whose file says kernel_config = localyes: a variant
 * built from source on a base of its own (defconfig, tinyconfig) gets
 * base = file over the machine's localyes config (made once per content
 * under the cache: CACHE/targets/NAME/localyes-KEY.config) and loses the
 * `base` fragment (QEMU's guest: virtio console, 9p); its other fragments
 * (rt...) and patches stay. Other variants, and other targets, are left
 * as they are. 1 when V was changed, 0 when not, -1 after an error. */
int target_variant(const char *name, struct variant *v);

/* The fragments list CONFIGS without the word "base", into OUT. */
void configs_without_base(const char *configs, char *out, size_t len);

#endif
