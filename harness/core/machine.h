/* machine.h - what rteval records about the machine a run measures: CPU
 * model and topology, SMT, NUMA, memory, frequency governor and boost,
 * isolated and nohz_full CPUs, the kernel command line, DMI vendor and
 * product. Plain libc and json-c: the guest agent links it too and puts
 * the guest's facts in its hello. */
#ifndef KBENCH_MACHINE_H
#define KBENCH_MACHINE_H

#include <json-c/json.h>

/* The facts of the machine whose /proc and /sys are under ROOT ("" = this
 * one; a fixture directory in tests). What cannot be read is null. */
json_object *machine_facts(const char *root);

/* Do machine facts A and B (untrusted JSON, either may be NULL) describe
 * different machines: CPU model, core or thread count, or memory class
 * (a power of two of GiB)? 1 with what differs in WHY, 0 if not or if
 * either lacks the facts. */
int machine_differs(json_object *a, json_object *b, char *why, size_t whylen);

/* "AMD EPYC, 1 socket, 2 cores, 2 threads, 23.5 GiB" into OUT, "" when M
 * has no CPU model. */
void machine_line(json_object *m, char *out, size_t len);

#endif
