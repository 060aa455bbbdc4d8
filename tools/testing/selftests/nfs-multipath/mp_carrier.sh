#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Carrier loss under load.  While fio reads and writes over a multipath
# mount with one path per NIC, one server link goes down (ip link set
# down on the server), later one client link (in the client), over RDMA
# and then over TCP.
# Where the testbed has testbed-link, both are done again as pulled
# cables: the interface stays up and loses its carrier.  Proves, each
# time: the path through that link is declared down within 2 s; its
# client NIC then carries (almost) nothing while the other paths carry the
# I/O; when the link is back the path is up again within 5 s and carries
# I/O again.  fio sees no error.  When the kernel has the rpc_path
# tracepoints, they recorded the state changes.
#
# Over RDMA, a soft-RoCE device that sent through a dead link never
# connects again; the testbed re-creates it, on either side
# (scripts/testbed.d/rxe-qp1-watch says why), and a client path then
# rejoins on the new device, within the same 5 s.

. ./lib.sh

MAX_LAT_MS=$(limit 2000)		# no request waits longer, as for the other failures

DETECT_CS=$(limit 200)		# declared down within 2 s
REJOIN_CS=$(limit 500)		# up again within 5 s

# remote_of LOCAL, local_of REMOTE: the other end of a path, from PAIRS.
remote_of() {
	echo "$PAIRS" | awk -v a="$1" '$2 == a { print $1 }'
}

local_of() {
	echo "$PAIRS" | awk -v a="$1" '$1 == a { print $2 }'
}

# link SIDE IF down|up HOW: ip link set on that side, or a pulled cable.
link() {
	if [ "$4" = cable ]; then
		testbed-link "$1" "$2" "$3"
	elif [ "$1" = client ]; then
		"client_link_$3" "$2"
	else
		"server_link_$3" "$2" >/dev/null
	fi
}

# carrier_case SIDE IF HOW: take data interface IF of SIDE (client,
# server) down under load, the HOW way (ip, cable); measure, bring it
# back, measure.
carrier_case() {
	local side=$1 ifc=$2 how=$3 addr cif t0 start pid down at prev rx_at d0
	local detected waited shares

	if [ "$side" = client ]; then
		cif=$ifc
		addr=$(remote_of "$(word_at "$(index_of "$ifc" "$CLIENT_IFS")" "$CLIENT_ADDRS")")
	else
		addr=$(word_at "$(index_of "$ifc" "$SERVER_IFS")" "$SERVER_ADDRS")
		cif=$(client_if "$(local_of "$addr")")
	fi
	log "--- $side $ifc down ($how): the path $(local_of "$addr") -> $addr (client $cif)"

	d0=$(path_downs "$addr") || fail "no path health in sysfs for $addr"
	t0=$(now_cs)
	trace_mark "$side $ifc down ($how)"
	# In the background: on-server takes most of a second, and
	# wait_down watches the client NIC meanwhile.
	link "$side" "$ifc" down "$how" &
	pid=$!
	if down=$(wait_down "$addr" "$cif" 15 "$d0"); then
		read -r at prev rx_at <<<"$down"
		start=$t0
		if [ "$side" = client ] && [ "$how" = ip ]; then
			detect_report "the path to $addr, from the link going down" \
				"$start" "$at" "$prev"
		else
			# The link went down after the last sample in which
			# $cif still received data: a pulled cable goes
			# through the host, a server's link through on-server.
			[ "$rx_at" -gt "$start" ] && start=$rx_at
			log "$cif last received data $(secs $((rx_at - t0))) s" \
				"after the command began"
			detect_report "the path to $addr, from then" "$start" "$at" "$prev"
		fi
		detected=$((at - start))
		if [ "$detected" -le "$DETECT_CS" ]; then
			log "ok: $side carrier loss detected within $(secs $DETECT_CS) s"
		else
			fail_later "$side carrier loss ($how) took $(secs "$detected") s" \
				"to detect, more than $(secs $DETECT_CS) s"
		fi
	else
		dump_paths
		fail_later "the path to $addr is not down 15 s after $side $ifc went down ($how)"
	fi
	wait "$pid" || fail "could not take $side $ifc down"
	show_endpoints

	window_shares shares 3
	if share_below "$shares" "$cif" 2; then
		log "ok: the dead path's NIC $cif carried almost nothing"
	else
		fail_later "$cif carried $(share_of "$shares" "$cif") %" \
			"of $(window_mib "$shares") MiB while its path was down"
	fi

	t0=$(now_cs)
	trace_mark "$side $ifc up ($how)"
	link "$side" "$ifc" up "$how" || fail "cannot bring $side $ifc up"
	# Counted from when the command returned: the link is up then,
	# and from when the client's rxe device is back, if the testbed
	# re-creates it (wait_path_rxe).
	if wait_path_rxe waited "$addr" up 30; then
		log "the path to $addr was up again $(secs "$waited") s after the link came back" \
		    "($(secs $(($(now_cs) - t0))) s after the command began)"
		# Over half the limit: what the connects did meanwhile
		[ "$waited" -le $((REJOIN_CS / 2)) ] || trace_since "$side $ifc up ($how)"
		if [ "$waited" -le "$REJOIN_CS" ]; then
			log "ok: rejoined within $(secs $REJOIN_CS) s"
		else
			fail_later "the rejoin ($side, $how) took $(secs "$waited") s," \
				"more than $(secs $REJOIN_CS) s"
		fi
	else
		dump_paths
		# What its connects did, or where they stopped
		trace_since "$side $ifc up ($how)" 300
		fail_later "the path to $addr is not up 30 s after $side $ifc came back ($how)"
	fi
	show_endpoints
	window_shares shares 3
	if share_at_least "$shares" "$cif" 10; then
		log "ok: after the rejoin $cif carried I/O again"
	else
		fail_later "after the rejoin $cif carried only" \
			"$(share_of "$shares" "$cif") % of $(window_mib "$shares") MiB"
	fi
}

# carrier_run PROTO SIDE: a multipath mount over PROTO under load, and
# the cases of SIDE, each way of HOWS.
carrier_run() {
	local proto=$1 side=$2 opts h ifc

	case "$proto" in
	rdma) opts=$MP_RDMA ;;
	tcp) opts=$MP_TCP ;;
	esac
	log "=== $side links, over $proto"
	nfs_mount "$opts,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
	touch_all_xprts
	check_fresh
	PAIRS=$(mountstats_pairs)
	show_endpoints

	load_start 240
	balanced_load || fail "before any failure not every client NIC carried I/O"
	# Not always the same path: the client's last link, the server's
	# link of the path from the first client address.
	if [ "$side" = client ]; then
		ifc=$(echo $CLIENT_IFS | awk '{ print $NF }')
	else
		ifc=$(server_if "$(remote_of "$(word_at 0 "$CLIENT_ADDRS")")")
	fi
	for h in $HOWS; do
		carrier_case "$side" "$ifc" "$h"
		CASES=$((CASES + 1))
	done
	load_stop
	latency_check "$MAX_LAT_MS"
	nfs_umount
}

main() {
	local n m tr

	HOWS=ip
	CASES=0
	boost_priority
	defer restore_links
	if command -v testbed-link >/dev/null; then
		HOWS="ip cable"
		defer "for i in $CLIENT_IFS; do testbed-link client \$i up;" \
			"testbed-link server \$i up; done"
	else
		log "no testbed-link here: no pulled cables"
	fi

	# One trace for both runs: the count of losses below spans them
	trace_start "$MAX_LAT_MS"
	tr=$(trace_dir)
	[ -n "$tr" ] || log "no rpc_path tracepoints in tracefs: not checked"
	# What a slow rejoin's connects did, for trace_since
	for e in rpcrdma/xprtrdma_op_connect rpcrdma/xprtrdma_connect \
		 rpcrdma/xprtrdma_post_recvs_err rpcrdma/xprtrdma_createmrs \
		 rdma_cma/cm_qp_create rdma_cma/cm_send_req \
		 rdma_cma/cm_event_handler rdma_cma/cm_id_destroy \
		 sunrpc/rpc_socket_connect; do
		[ -z "$tr" ] || trace_event "$e"
	done

	carrier_run rdma server
	carrier_run rdma client
	carrier_run tcp client

	if [ -n "$tr" ]; then
		# Not the events of the mounts: only losses and moves count
		n=$(grep -c 'rpc_path_state: .* up -> down' "$tr/trace" || true)
		m=$(grep -c 'rpc_path_move' "$tr/trace" || true)
		grep -m 12 -E 'rpc_path_(state|move)' "$tr/trace" | sed 's/^ */trace: /'
		log "trace: $n up -> down events, $m rpc_path_move events"
		if [ "$n" -ge "$CASES" ]; then
			log "ok: the tracepoints recorded a loss for each of the $CASES cases"
		else
			fail_later "only $n up -> down events for $CASES carrier losses"
		fi
		if [ "$m" -gt 0 ]; then
			log "ok: requests moved off the paths that lost their carrier"
		else
			fail_later "no request moved off a path that lost its carrier"
		fi
	fi
	fail_if_any
}

main
