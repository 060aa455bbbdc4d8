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

/* rpc_endpoint_config.flags of a mount */
#define NFS_ENDPOINTS_DNS		0x1	/* remoteports=dns */
#define NFS_ENDPOINTS_NCONNECT_AUTO	0x2	/* no nconnect=: as many as
						 * the larger set has
						 */

struct fs_context;
struct nfs_client;
struct nfs_client_initdata;
struct rpc_clnt;
struct seq_file;

int nfs_endpoints_copy(struct rpc_endpoint_config *dst,
		       const struct rpc_endpoint_config *src, gfp_t gfp);
void nfs_endpoints_free(struct rpc_endpoint_config *cfg);
__printf(2, 3)
int nfs_endpoints_invalf(struct fs_context *fc, const char *fmt, ...);
__printf(2, 3)
int nfs_endpoints_busyf(struct fs_context *fc, const char *fmt, ...);
int nfs_endpoints_error(struct fs_context *fc, const char *option,
			const struct rpc_endpoint_error *err);
int nfs_parse_endpoints(struct fs_context *fc, bool local, const char *value);
int nfs_endpoints_resolve(struct fs_context *fc,
			  struct rpc_endpoint_config *cfg,
			  sa_family_t server_family);
void nfs_endpoints_set_offset(struct rpc_endpoint_config *cfg, bool pinned);
unsigned int nfs_endpoints_auto_nconnect(const struct rpc_endpoint_config *cfg);
int nfs_endpoints_lock(struct nfs_client *clp);
bool nfs_endpoints_trylock(struct nfs_client *clp);
void nfs_endpoints_unlock(struct nfs_client *clp);
bool nfs_endpoints_alone(struct nfs_client *clp, unsigned int *mounts);
void nfs_endpoints_commit(struct nfs_client *clp,
			  struct rpc_endpoint_config *cfg, unsigned int n);
int nfs_endpoints_stock_nconnect(struct fs_context *fc);
int nfs_validate_endpoints(struct fs_context *fc);
bool nfs_client_endpoints_match(const struct nfs_client *clp,
				const struct nfs_client_initdata *data);
void nfs_show_endpoint_options(struct seq_file *m,
			       const struct nfs_client *clp);
int nfs_endpoints_probe(struct nfs_client *clp, struct rpc_clnt *clnt);
void nfs_endpoints_stop(struct nfs_client *clp);

/* multipath_remount.c */
int nfs_reconfigure_endpoints(struct fs_context *fc);

/* multipath_dns.c */
int nfs_endpoints_dns_mount(struct fs_context *fc);
void nfs_endpoints_dns_start(struct nfs_client *clp);
void nfs_endpoints_dns_stop(struct nfs_client *clp);

#endif /* __LINUX_FS_NFS_MULTIPATH_H */
