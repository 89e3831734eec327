/* list.h - every workload kbench knows, one line each, in `kbench
 * workloads` order. WORKLOAD(name) stands for workloads/name.c, which
 * defines `const struct workload_ops name_ops`. An X-macro list: no include
 * guard; the includer defines WORKLOAD(name) first and this file undefines
 * it. It yields the externs (core/workload.h), the registry
 * (workloads/registry.c), the workload fuzz targets (fuzz/targets.c) and
 * the Makefile's FUZZ_NAMES; tests/unit/test_workloads.c checks the lists
 * that cannot be derived (harness/deps.sh, the schema's workload enum).
 * Adding a workload: docs/adding-a-workload.md. */
WORKLOAD(hackbench)
WORKLOAD(dbench)
WORKLOAD(cyclictest)
WORKLOAD(kbuild)
#undef WORKLOAD
