# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2154
#
# The guest side of the devices benchmark (tests/bench/devices/run): bash in the project's
# guest image, started through systemd.run= from the read-only 9p share mounted at /run/t,
# which also holds fs-bench, a copy of the test host's iperf3 with its libraries and loader in
# /run/t/lib, the CONF file (shell variables, written by run) and the go/ directory:
#   vm               the prefix of the result lines (ccvmm, qemu)
#   tags             9p tags to mount with cache=<tag> at /run/b-<tag>
#   size files       fs-bench's arguments
#   secs             seconds per iperf3 run
#   guest_ip host_ip the addresses of eth0 (/24) and of the tap on the test host
#
#   /bin/bash /run/t/guest.sh /run/t/CONF
#
# It mounts the shares, configures eth0, prints cc-bench-<vm>-ready=1, then does what the test
# host asks, one step at a time, so that the host can interleave the VMs (and itself) and take
# each repetition of every figure under the same load: step N is the file go/<vm>.N, one line:
#   fs TAG RUN   fs-bench on the share mounted with cache=TAG
#   net RUN      iperf3 guest->host, then host->guest (-R), to the iperf3 server on the tap
#   end          stop (the VM reboots, which ends it)
# Results are `cc-bench-<vm>-...=VALUE` lines on the console; step N ends with
# cc-bench-<vm>-step-N=ok (or =failed).
set -u
# shellcheck source=/dev/null
. "$1"
say() { echo "cc-bench-$vm-$1=$2"; }
say start 1

for tag in $tags; do
	mkdir -p "/run/b-$tag"
	if ! mount -t 9p -o "trans=virtio,version=9p2000.L,cache=$tag" "$tag" "/run/b-$tag"; then
		say "9p-$tag-error" mount
		continue
	fi
	say "9p-$tag-options" "$(awk -v m="/run/b-$tag" '$2 == m { print $4 }' /proc/mounts)"
done

say net-mac "$(cat /sys/class/net/eth0/address)"
# The image has no iproute2: address and link up with ioctls, from perl.
perl -e '
	use Socket;
	socket(my $s, AF_INET, SOCK_DGRAM, 0) or die "socket: $!\n";
	my $ifa = sub { pack("a16 S n a4 x16", "eth0", AF_INET, 0, inet_aton($_[0])) };
	my ($addr, $mask, $up) = ($ifa->($ARGV[0]), $ifa->("255.255.255.0"),
		pack("a16 s x22", "eth0", 1));
	ioctl($s, 0x8916, $addr) or die "SIOCSIFADDR: $!\n";
	ioctl($s, 0x891c, $mask) or die "SIOCSIFNETMASK: $!\n";
	ioctl($s, 0x8914, $up) or die "SIOCSIFFLAGS: $!\n";
' "$guest_ip" || say net-error ifconfig
say ready 1

# iperf3_run ARGS...: one run, prints the receiver's Mbit/s or nothing
iperf3_run() {
	TMPDIR=/run /run/t/lib/ld-linux-x86-64.so.2 --library-path /run/t/lib /run/t/lib/iperf3 \
		-c "$host_ip" -t "$secs" -f m --connect-timeout 5000 "$@" >/run/iperf3.out 2>&1
	awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") print $i }' \
		/run/iperf3.out
}

# net RUN: both directions
net() {
	local dir v ok=0
	local -a args
	for dir in g2h h2g; do
		args=()
		[[ "$dir" == h2g ]] && args=(-R)
		# A failed attempt (the link still coming up) is retried twice.
		for _ in 1 2 3; do
			v=$(iperf3_run "${args[@]}")
			[[ -n "$v" ]] && break
			sleep 1
		done
		if [[ -n "$v" ]]; then
			say "net-$dir-$1" "$v"
			# the sender's TCP retransmissions, when this side sent (g2h)
			v=$(awk '/sender/ { for (i = 1; i < NF; i++)
				if ($i == "Mbits/sec" && $(i + 1) ~ /^[0-9]+$/) print $(i + 1) }' \
				/run/iperf3.out)
			[[ -n "$v" ]] && say "net-$dir-retr-$1" "$v"
		else
			say "net-$dir-error" "$(tail -n 2 /run/iperf3.out | tr ' \n' '_|')"
			ok=1
		fi
	done
	return $ok
}

# Waiting costs no fork: a read with a timeout on a FIFO nobody writes.
mkfifo /run/cc-bench-wait && exec 3<>/run/cc-bench-wait
n=1
while :; do
	go=/run/t/go/$vm.$n
	until [[ -e "$go" ]]; do
		read -r -t 0.5 -u 3 _
	done
	read -r what a b <"$go"
	rc=0
	case "$what" in
	fs) bash /run/t/fs-bench "/run/b-$a" "$vm-9p-$a" "$b" "$size" "$files" || rc=1 ;;
	net) net "$a" || rc=1 ;;
	end) break ;;
	*) rc=1 ;;
	esac
	if ((rc == 0)); then
		say "step-$n" ok
	else
		say "step-$n" failed
	fi
	n=$((n + 1))
done
say "done" 1
