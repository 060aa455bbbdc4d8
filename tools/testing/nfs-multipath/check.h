/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks of the policy tests (policy_test.c, numa_test.c): CHECK
 * counts each one and prints the failed ones; main() reports the counts.
 */
#ifndef NFS_MULTIPATH_CHECK_H
#define NFS_MULTIPATH_CHECK_H
#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		printf("FAIL %s:%d: ", __func__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)
#endif
