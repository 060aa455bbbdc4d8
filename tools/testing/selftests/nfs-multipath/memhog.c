// SPDX-License-Identifier: GPL-2.0
/*
 * memhog - make the kernel swap, and check what comes back
 *
 *   memhog MIB PASSES
 *
 * Allocates MIB mebibytes, and in each pass writes every page with a
 * pattern of its index and the pass, then reads every page back and
 * checks it.  With more than the free memory, the pages go to swap and
 * come back.  Prints one line per pass; exit status 1 on a bad page, 2 on
 * misuse or when the memory cannot be had.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t word(uint64_t page, uint64_t i, uint64_t pass)
{
	return (page * 0x9e3779b97f4a7c15ULL) ^ (i << 32) ^ pass;
}

int main(int argc, char **argv)
{
	size_t mib, size, psize = sysconf(_SC_PAGESIZE), pages, p, i, n;
	unsigned long passes, pass;
	uint64_t *mem;
	double t0;

	if (argc != 3)
		return 2;
	mib = strtoul(argv[1], NULL, 0);
	passes = strtoul(argv[2], NULL, 0);
	size = mib << 20;
	pages = size / psize;
	n = psize / sizeof(uint64_t);
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("memhog: mmap");
		return 2;
	}
	for (pass = 1; pass <= passes; pass++) {
		t0 = now();
		for (p = 0; p < pages; p++)
			for (i = 0; i < n; i += 64)
				mem[p * n + i] = word(p, i, pass);
		for (p = 0; p < pages; p++)
			for (i = 0; i < n; i += 64)
				if (mem[p * n + i] != word(p, i, pass)) {
					printf("memhog: pass %lu: page %zu word %zu is wrong\n",
					       pass, p, i);
					return 1;
				}
		printf("memhog: pass %lu: %zu MiB written and verified in %.1f s\n",
		       pass, mib, now() - t0);
		fflush(stdout);
	}
	return 0;
}
