// SPDX-License-Identifier: GPL-2.0
/*
 * fhandle PATH...: print "PATH TYPE HEX" for each PATH, where TYPE and
 * HEX are the file handle that name_to_handle_at(2) gives.  On an NFS
 * mount, that handle embeds the server's own file handle (the client's
 * nfs_encode_fh()), so two mounts of two servers that hand out the same
 * file handles print the same lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int print_handle(const char *path)
{
	struct file_handle *fh;
	unsigned int i;
	int mount_id;

	fh = malloc(sizeof(*fh) + MAX_HANDLE_SZ);
	if (!fh)
		return -1;
	fh->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, fh, &mount_id, 0)) {
		fprintf(stderr, "fhandle: %s: %s\n", path, strerror(errno));
		free(fh);
		return -1;
	}
	printf("%s %d ", path, fh->handle_type);
	for (i = 0; i < fh->handle_bytes; i++)
		printf("%02x", fh->f_handle[i]);
	printf("\n");
	free(fh);
	return 0;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: fhandle PATH...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (print_handle(argv[i]))
			rc = 1;
	return rc;
}
