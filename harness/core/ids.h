/* ids.h - the ids of runs, campaigns and nights: made in one place (a UTC
 * timestamp, then parts such as the variant and suite) and checked in one
 * place, wherever one comes from (the command line, a config, or a
 * nightly.json or results.json that kbench merge or nightly --runs reads,
 * which are untrusted). An id names a directory, so it is a plain name. */
#ifndef KBENCH_IDS_H
#define KBENCH_IDS_H

#include <stddef.h>

/* The longest id, in characters (ids live in char[KB_ID_MAX + 1]). */
#define KB_ID_MAX 127

/* "20261204T114815Z" (the UTC time now), then "-PART" for each part
 * until NULL: id_make(buf, sizeof(buf), variant, suite, NULL). */
void id_make(char *out, size_t len, ...) __attribute__((sentinel));

/* 1 if S can be an id: 1 to KB_ID_MAX letters, digits, '.', '_' or '-',
 * not starting with '.' or '-' (so never ".", ".." or an option). */
int id_valid(const char *s);

/* id_valid, or an error "WHAT 'S' must be ..." and -1. */
int id_check(const char *what, const char *s);

#endif
