// SPDX-License-Identifier: GPL-2.0
/*
 * genwrite - rewrite the blocks of a file, generation after generation
 *
 *   genwrite FILE BLOCKS BLOCKSIZE THREADS MANIFEST
 *
 * THREADS threads write FILE with O_DIRECT, thread t the blocks b with
 * b % THREADS == t, one pwrite() per block, in passes: pass g writes
 * generation g into each of its blocks.  Every 32-byte record of a block
 * reads "G<generation> B<block>".  On SIGUSR1 each thread ends its pass,
 * writes one more full pass, and stops; then MANIFEST gets one line
 * "BLOCK GENERATION" per block, the last generation written to it, and the
 * exit status is 0.  A failed pwrite() ends the program with status 1.
 *
 *   genwrite --check FILE BLOCKS BLOCKSIZE MANIFEST
 *
 * reads FILE (no O_DIRECT: on the server, after the fact) and prints one
 * line per block that does not hold its manifest generation in every
 * record, "stale BLOCK want W got G@OFFSET"; exit status 1 if any.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RECORD	32

/*
 * Set by the SIGUSR1 handler, read by the writer threads: a lock-free
 * atomic is safe in a signal handler and seen across threads.
 */
static atomic_bool stopping;
static const char *path;
static unsigned int blocks, threads;
static size_t bsize;
static unsigned int *last;
static int fd;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_store(&stopping, true);
}

static void fill(char *buf, unsigned int gen, unsigned int blk)
{
	size_t off;

	for (off = 0; off + RECORD <= bsize; off += RECORD)
		snprintf(buf + off, RECORD, "G%010u B%06u", gen, blk);
}

/* One pass of thread @t: generation @gen into each of its blocks */
static int pass(unsigned int t, unsigned int gen, char *buf)
{
	unsigned int b;

	for (b = t; b < blocks; b += threads) {
		fill(buf, gen, b);
		if (pwrite(fd, buf, bsize, (off_t)b * bsize) != (ssize_t)bsize) {
			fprintf(stderr, "genwrite: pwrite of block %u gen %u: %s\n",
				b, gen, strerror(errno));
			return -1;
		}
		last[b] = gen;
	}
	return 0;
}

static void *writer(void *arg)
{
	unsigned int t = (unsigned int)(unsigned long)arg, gen = 0;
	char *buf;

	if (posix_memalign((void **)&buf, 4096, bsize))
		return (void *)1;
	memset(buf, 0, bsize);
	while (!atomic_load(&stopping))
		if (pass(t, ++gen, buf))
			return (void *)1;
	/* The pass after the signal holds the final contents */
	if (pass(t, ++gen, buf))
		return (void *)1;
	free(buf);
	return NULL;
}

static int write_manifest(const char *manifest)
{
	FILE *f = fopen(manifest, "w");
	unsigned int b;

	if (!f)
		return -1;
	for (b = 0; b < blocks; b++)
		fprintf(f, "%u %u\n", b, last[b]);
	return fclose(f);
}

static int do_write(const char *manifest)
{
	pthread_t *tid = calloc(threads, sizeof(*tid));
	struct sigaction sa = { .sa_handler = on_usr1 };
	unsigned int t, lo = ~0U, hi = 0, b;
	int rc = 0;
	void *ret;

	last = calloc(blocks, sizeof(*last));
	if (!tid || !last)
		return 2;
	sigaction(SIGUSR1, &sa, NULL);
	fd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	for (t = 0; t < threads; t++)
		if (pthread_create(&tid[t], NULL, writer, (void *)(unsigned long)t))
			return 2;
	for (t = 0; t < threads; t++) {
		pthread_join(tid[t], &ret);
		if (ret)
			rc = 1;
	}
	if (close(fd))
		rc = 1;
	if (write_manifest(manifest))
		rc = 1;
	for (b = 0; b < blocks; b++) {
		lo = last[b] < lo ? last[b] : lo;
		hi = last[b] > hi ? last[b] : hi;
	}
	printf("genwrite: %u blocks, last generations %u to %u\n",
	       blocks, lo, hi);
	return rc;
}

/* The generation of every record of block @b, checked against @want */
static int check_block(const char *buf, unsigned int b, unsigned int want)
{
	unsigned int gen, blk;
	size_t off;

	for (off = 0; off + RECORD <= bsize; off += RECORD) {
		if (sscanf(buf + off, "G%u B%u", &gen, &blk) != 2 || blk != b) {
			printf("stale %u want %u got garbage@%zu\n", b, want, off);
			return 1;
		}
		if (gen != want) {
			printf("stale %u want %u got %u@%zu\n", b, want, gen, off);
			return 1;
		}
	}
	return 0;
}

static int do_check(const char *manifest)
{
	FILE *f = fopen(manifest, "r");
	unsigned int b, want, bad = 0, n = 0;
	char *buf = malloc(bsize);

	fd = open(path, O_RDONLY);
	if (!f || fd < 0 || !buf) {
		perror("genwrite --check");
		return 2;
	}
	while (fscanf(f, "%u %u", &b, &want) == 2) {
		if (b >= blocks ||
		    pread(fd, buf, bsize, (off_t)b * bsize) != (ssize_t)bsize) {
			printf("stale %u want %u got short-read\n", b, want);
			bad++;
			continue;
		}
		bad += check_block(buf, b, want);
		n++;
	}
	printf("genwrite: %u of %u blocks hold their last generation\n",
	       n - bad, n);
	return bad || n != blocks;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "--check")) {
		path = argv[2];
		blocks = strtoul(argv[3], NULL, 0);
		bsize = strtoul(argv[4], NULL, 0);
		return do_check(argv[5]);
	}
	if (argc != 6) {
		fprintf(stderr, "usage: genwrite FILE BLOCKS BLOCKSIZE THREADS MANIFEST\n"
			"       genwrite --check FILE BLOCKS BLOCKSIZE MANIFEST\n");
		return 2;
	}
	path = argv[1];
	blocks = strtoul(argv[2], NULL, 0);
	bsize = strtoul(argv[3], NULL, 0);
	threads = strtoul(argv[4], NULL, 0);
	if (!blocks || bsize < RECORD || bsize % 512 || !threads ||
	    threads > blocks)
		return 2;
	return do_write(argv[5]);
}
