// SPDX-License-Identifier: GPL-2.0
/*
 * fsmount_nfs - mount NFS through the new mount API and show the log
 *
 *   fsmount_nfs SOURCE TARGET KEY[=VALUE]...
 *
 * fsopen("nfs"), one fsconfig() per option (FSCONFIG_SET_STRING, or
 * FSCONFIG_SET_FLAG for a bare KEY), FSCONFIG_CMD_CREATE, then fsmount()
 * and move_mount() onto TARGET.  The messages of the fs_context log are
 * printed as they are read ("e NFS: ..." lines).  On failure the last
 * line is "errno: NAME (step)" and the exit status is 1; 2 means misuse.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>

static void drain_log(int fsfd)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = read(fsfd, buf, sizeof(buf) - 1);
		if (n <= 0)
			return;
		while (n > 0 && buf[n - 1] == '\n')
			n--;
		buf[n] = '\0';
		printf("log: %s\n", buf);
	}
}

static int failed(int fsfd, const char *step)
{
	int err = errno;

	if (fsfd >= 0)
		drain_log(fsfd);
	printf("errno: %s (%s)\n", strerrorname_np(err) ?: "?", step);
	return 1;
}

static int set_option(int fsfd, char *opt)
{
	char *eq = strchr(opt, '=');

	if (!eq)
		return fsconfig(fsfd, FSCONFIG_SET_FLAG, opt, NULL, 0);
	*eq = '\0';
	return fsconfig(fsfd, FSCONFIG_SET_STRING, opt, eq + 1, 0);
}

int main(int argc, char **argv)
{
	int fsfd, mfd, i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s SOURCE TARGET KEY[=VALUE]...\n",
			argv[0]);
		return 2;
	}
	fsfd = fsopen("nfs", FSOPEN_CLOEXEC);
	if (fsfd < 0)
		return failed(-1, "fsopen");
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "source", argv[1], 0))
		return failed(fsfd, "source");
	for (i = 3; i < argc; i++) {
		if (set_option(fsfd, argv[i]))
			return failed(fsfd, argv[i]);
	}
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		return failed(fsfd, "create");
	drain_log(fsfd);
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, 0);
	if (mfd < 0)
		return failed(fsfd, "fsmount");
	if (move_mount(mfd, "", AT_FDCWD, argv[2], MOVE_MOUNT_F_EMPTY_PATH))
		return failed(fsfd, "move_mount");
	printf("mounted %s on %s\n", argv[1], argv[2]);
	return 0;
}
