/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NFS multipath mounts: the remoteports= and localports= options.
 */
#ifndef __LINUX_FS_NFS_MULTIPATH_H
#define __LINUX_FS_NFS_MULTIPATH_H

#include <linux/sunrpc/clnt_endpoints.h>
#include <linux/sunrpc/xprt_health.h>
#include <linux/sunrpc/xprtmultipath.h>

/* Most transports a mount with remoteports= or localports= may open */
#define NFS_MAX_MULTIPATH_CONNECTIONS	64

struct fs_context;
struct nfs_client;
struct nfs_client_initdata;
struct rpc_clnt;
struct seq_file;

int nfs_endpoints_copy(struct rpc_endpoint_config *dst,
		       const struct rpc_endpoint_config *src, gfp_t gfp);
void nfs_endpoints_free(struct rpc_endpoint_config *cfg);
int nfs_parse_endpoints(struct fs_context *fc, bool local, const char *value);
int nfs_validate_endpoints(struct fs_context *fc);
bool nfs_client_endpoints_match(const struct nfs_client *clp,
				const struct nfs_client_initdata *data);
void nfs_show_endpoint_options(struct seq_file *m,
			       const struct nfs_client *clp);
int nfs_endpoints_probe(struct nfs_client *clp, struct rpc_clnt *clnt);
void nfs_endpoints_stop(struct nfs_client *clp);

#endif /* __LINUX_FS_NFS_MULTIPATH_H */
