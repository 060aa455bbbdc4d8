// SPDX-License-Identifier: GPL-2.0
/*
 * NFS multipath mounts: remoteports=, localports=, remoteports_offset=,
 * nconnect= and pathpolicy= changed by a remount, while I/O runs.
 *
 * What a remount does not give keeps its value (mount(8) passes the
 * options of /proc/mounts anyway).  The new configuration is checked as a
 * mount's is, the client's paths are brought to it
 * (rpc_path_monitor_reconfigure()), and /proc/mounts shows it.  The paths
 * then are those a new mount with the same options would have.
 *
 * Only a client that serves this mount alone may change: the other mounts
 * that share it asked for the paths it has.  A mount without endpoint
 * sets stays without them, and its remount stays the stock one.
 */

#include <linux/fs_context.h>
#include <linux/nfs_fs.h>
#include <linux/slab.h>
#include <linux/sunrpc/clnt.h>

#include "internal.h"
#include "multipath.h"
#include "netns.h"

#define NFSDBG_FACILITY		NFSDBG_MOUNT

static bool nfs_remount_gives_endpoints(const struct nfs_fs_context *ctx)
{
	return rpc_endpoint_config_active(&ctx->endpoints) ||
	       ctx->endpoints.flags || ctx->endpoints_offset_set ||
	       ctx->endpoints_policy_set;
}

/* Only a client that no other mount shares, nor is about to share, may
 * change: the others asked for the paths it has
 */
static int nfs_remount_alone(struct fs_context *fc, struct nfs_client *clp)
{
	unsigned int mounts;

	if (nfs_endpoints_alone(clp, &mounts))
		return 0;
	if (mounts > 1)
		return nfs_endpoints_busyf(fc,
			"remount: %s: %u other mount%s of the server share%s its transports, so its endpoints cannot change",
			clp->cl_hostname, mounts - 1, mounts > 2 ? "s" : "",
			mounts > 2 ? "" : "s");
	return nfs_endpoints_busyf(fc,
		"remount: %s: a mount that may share its transports is being set up: try again",
		clp->cl_hostname);
}

/* Replace the set in @cur with the one the remount gave, if it differs */
static bool nfs_remount_take_set(struct rpc_endpoint_set **cur,
				 struct rpc_endpoint_set **given)
{
	if (!*given || rpc_endpoints_equal(*cur, *given))
		return false;
	rpc_endpoints_free(*cur);
	*cur = *given;
	*given = NULL;
	return true;
}

/* remoteports=dns stays, or gives way to the addresses a remount gives;
 * it cannot come in by remount
 */
static int nfs_remount_dns(struct fs_context *fc, struct nfs_client *clp,
			   struct rpc_endpoint_config *cfg)
{
	struct nfs_fs_context *ctx = nfs_fc2context(fc);
	const struct rpc_endpoint_config *given = &ctx->endpoints;

	if (given->flags & NFS_ENDPOINTS_DNS) {
		if (!(cfg->flags & NFS_ENDPOINTS_DNS))
			return nfs_endpoints_invalf(fc,
				"remount: remoteports=dns needs a mount made with it");
		if (ctx->endpoints_offset_set)
			return nfs_endpoints_invalf(fc,
				"remoteports_offset= does not go with remoteports=dns, whose answer changes");
	}
	if (given->remote)
		cfg->flags &= ~NFS_ENDPOINTS_DNS;
	return 0;
}

/* A mount made without nconnect= keeps one transport per endpoint of the
 * larger set, unless the remount gives another nconnect= than it has
 */
static unsigned int nfs_remount_nconnect(struct fs_context *fc,
					 struct nfs_client *clp,
					 struct rpc_endpoint_config *cfg)
{
	unsigned int given = nfs_fc2context(fc)->nfs_server.nconnect;

	if (given && given != clp->cl_nconnect)
		cfg->flags &= ~NFS_ENDPOINTS_NCONNECT_AUTO;
	if (cfg->flags & NFS_ENDPOINTS_NCONNECT_AUTO)
		return nfs_endpoints_auto_nconnect(cfg);
	return given ?: clp->cl_nconnect;
}

/* The client's configuration with the remount's options in it; only the
 * holder of nfs_endpoints_lock() changes the client's, so it is read
 * without nfs_client_lock
 */
static int nfs_remount_merge(struct fs_context *fc, struct nfs_client *clp,
			     struct rpc_endpoint_config *cfg)
{
	struct nfs_fs_context *ctx = nfs_fc2context(fc);
	struct rpc_endpoint_config *given = &ctx->endpoints;
	bool remote, local;
	int ret;

	ret = nfs_endpoints_copy(cfg, &clp->cl_endpoints, GFP_KERNEL);
	if (ret)
		return ret;
	ret = nfs_remount_dns(fc, clp, cfg);
	if (ret)
		return ret;
	remote = nfs_remount_take_set(&cfg->remote, &given->remote);
	local = nfs_remount_take_set(&cfg->local, &given->local);
	if (remote || local) {
		ret = nfs_endpoints_resolve(fc, cfg, clp->cl_addr.ss_family);
		if (ret)
			return ret;
	}
	/* The offset stays unless given, within the new remote endpoints */
	if (ctx->endpoints_offset_set)
		cfg->offset = given->offset;
	nfs_endpoints_set_offset(cfg, true);
	cfg->policy = ctx->endpoints_policy_set ? given->policy :
			rpc_clnt_xprt_policy(clp->cl_rpcclient);
	return 0;
}

/* Do the paths change, or only the policy */
static bool nfs_remount_moves_paths(const struct nfs_client *clp,
				    const struct rpc_endpoint_config *cfg,
				    unsigned int n)
{
	const struct rpc_endpoint_config *cur = &clp->cl_endpoints;

	return n != clp->cl_nconnect || cfg->offset != cur->offset ||
	       !rpc_endpoints_equal(cfg->remote, cur->remote) ||
	       !rpc_endpoints_equal(cfg->local, cur->local);
}

static int nfs_remount_paths(struct fs_context *fc, struct nfs_client *clp,
			     struct rpc_endpoint_config *cfg, unsigned int n)
{
	struct rpc_endpoint_error err = { };
	int ret;

	if (!clp->cl_path_monitor)
		return nfs_endpoints_invalf(fc,
			"remount: the paths of %s are not watched, so they cannot change",
			clp->cl_hostname);
	ret = rpc_path_monitor_reconfigure(clp->cl_path_monitor, cfg, n, &err);
	if (ret && err.reason)
		nfs_endpoints_error(fc, "remount", &err);
	return ret;
}

/* Does the remount change anything: the paths, the policy or the options */
static bool nfs_remount_changes(struct nfs_client *clp,
				const struct rpc_endpoint_config *cfg,
				unsigned int n)
{
	const struct rpc_endpoint_config *cur = &clp->cl_endpoints;

	return nfs_remount_moves_paths(clp, cfg, n) || cfg->flags != cur->flags ||
	       cfg->policy != rpc_clnt_xprt_policy(clp->cl_rpcclient);
}

static int nfs_remount_locked(struct fs_context *fc, struct nfs_client *clp)
{
	struct rpc_endpoint_config cfg;
	unsigned int n = 0;
	int ret;

	ret = nfs_remount_merge(fc, clp, &cfg);
	if (!ret)
		n = nfs_remount_nconnect(fc, clp, &cfg);
	if (ret || !nfs_remount_changes(clp, &cfg, n))
		goto out;
	ret = nfs_remount_alone(fc, clp);
	if (!ret && nfs_remount_moves_paths(clp, &cfg, n))
		ret = nfs_remount_paths(fc, clp, &cfg, n);
	if (!ret) {
		if (cfg.policy != rpc_clnt_xprt_policy(clp->cl_rpcclient))
			rpc_clnt_set_xprt_policy(clp->cl_rpcclient, cfg.policy);
		nfs_endpoints_commit(clp, &cfg, n);
	}
out:
	nfs_endpoints_free(&cfg);
	return ret;
}

/* A mount without endpoint sets: its remount is the stock one */
static int nfs_remount_plain(struct fs_context *fc)
{
	struct nfs_fs_context *ctx = nfs_fc2context(fc);

	if (nfs_remount_gives_endpoints(ctx))
		return nfs_endpoints_invalf(fc,
			"remount: remoteports=, localports=, remoteports_offset= and pathpolicy= need a mount made with remoteports= or localports=");
	return nfs_endpoints_stock_nconnect(fc);
}

/**
 * nfs_reconfigure_endpoints - apply the endpoint options of a remount
 * @fc: the remount's context, its options compared with the mount's
 *
 * A mount with endpoint sets takes new sets, a new offset, nconnect= and
 * pathpolicy=: its paths are brought to what a mount with these options
 * would have, while I/O runs.  A mount without endpoint sets refuses the
 * endpoint options, and ignores nconnect= as a stock kernel does.
 *
 * Return: 0, or a negative errno; -EINVAL comes with a message.
 */
int nfs_reconfigure_endpoints(struct fs_context *fc)
{
	struct nfs_server *nfss = fc->root->d_sb->s_fs_info;
	struct nfs_client *clp = nfss->nfs_client;
	int ret;

	if (!rpc_endpoint_config_active(&clp->cl_endpoints))
		return nfs_remount_plain(fc);
	ret = nfs_endpoints_lock(clp);
	if (ret)
		return ret;
	ret = nfs_remount_locked(fc, clp);
	nfs_endpoints_unlock(clp);
	return ret;
}
