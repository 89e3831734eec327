/* tmpdb.h - a fresh directory for a test binary's history database (the
 * group setup and teardown of test_changepoint.c and test_verdict.c).
 * Header only: every tests/unit/test_*.c is its own binary. */
#ifndef KBENCH_TEST_TMPDB_H
#define KBENCH_TEST_TMPDB_H

#include <stdio.h>
#include <stdlib.h>
#include "core/util.h"

static char dir[64];
static char db[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kbench-test-db.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(db, sizeof(db), "%s/history.sqlite", dir);
	kb_quiet = 1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

#endif
