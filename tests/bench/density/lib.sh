# SPDX-License-Identifier: Apache-2.0
# Shell helpers of the density benchmarks (run, breakdown), sourced by both; they set me, root
# and here.
# shellcheck shell=bash disable=SC2154

median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }
# fault_around_arg BYTES: BYTES when it is a --fault-around value (4096 to 9999999), else a
# message and exit 2
fault_around_arg() {
	[[ "$1" =~ ^[0-9]{4,7}$ ]] || {
		echo "$me: --fault-around needs a number of bytes (4096 to 9999999)" >&2
		exit 2
	}
	echo "$1"
}
# fault_around_set BYTES: the test host's fault_around_bytes (debugfs), a host-wide setting
fault_around_set() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug || return 1
	echo "$1" >/sys/kernel/debug/fault_around_bytes || return 1
	echo "$me: the test host's fault_around_bytes: $(cat /sys/kernel/debug/fault_around_bytes)" >&2
}
# alive PID: the process exists and is not a zombie (kill -0 succeeds on an unwaited child)
alive() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[[ "${st:0:1}" != Z ]]
}
mb() { awk -v k="$1" 'BEGIN { printf "%.1f\n", k / 1024 }'; }
memavail_kb() { awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo; }

# smaps_split PID MEM_MIB [others|base]: "cat rss pss anon" lines (kB) for the categories
#   ram vmlinux image bin heap other total
# of the process's mappings (see the header); total is from smaps_rollup. With "others": the
# resident anonymous mappings that are not guest RAM instead (stacks, arenas, buffers), one
# "range rss_kb size_kb" line each. With "base": the address where guest RAM starts (guest
# physical address 0: the first mapping of the run), in hex.
smaps_split() {
	# Guest RAM is every anonymous mapping in the address-contiguous run of mappings that holds
	# the biggest anonymous one (at least an eighth of the VM's memory): cc-vmm maps the vmlinux
	# file over guest RAM (MAP_FIXED), which splits it into anonymous pieces around the
	# kernel's segments (below 16 MiB, between segments), and --merge-pages maps single pages
	# of it onto its memfd of patterns (those count as guest RAM too; the memfd's other
	# mapping, where the VMM writes the patterns, counts as the VMM's own).
	awk -v big=$(($2 * 1024 / 8)) -v mode="${3:-split}" '
		/^[0-9a-f]+-[0-9a-f]+ / {
			n++
			split($1, ad, "-"); s[n] = ad[1]; e[n] = ad[2]; range[n] = $1
			path = $6; perms[n] = $2
			if (path ~ /vmlinux/) cat[n] = "vmlinux"
			else if (path ~ /^\/memfd:cc-vmm-same-pages/) cat[n] = "merged"
			else if (path ~ /(guest\.img|rootfs\.img)$/) cat[n] = "image"
			else if (path ~ /^\//) cat[n] = "bin"
			else if (path == "[heap]") cat[n] = "heap"
			else cat[n] = "anon"
			next
		}
		$1 == "Size:" { size[n] = $2; next }
		$1 == "Rss:" { r[n] = $2; next }
		$1 == "Pss:" { p[n] = $2; next }
		$1 == "Anonymous:" { a[n] = $2; next }
		function inram(i) { return cat[i] == "anon" || cat[i] == "vmlinux" || cat[i] == "merged" }
		END {
			for (i = 1; i <= n; i++)
				if (cat[i] == "anon" && size[i] >= big && perms[i] ~ /^rw/ &&
				    (!b || size[i] > size[b])) b = i
			if (b) {
				cat[b] = "ram"
				for (i = b - 1; i >= 1 && e[i] == s[i + 1] && inram(i); i--)
					if (cat[i] != "vmlinux") cat[i] = "ram"
				first = i + 1
				for (i = b + 1; i <= n && s[i] == e[i - 1] && inram(i); i++)
					if (cat[i] != "vmlinux") cat[i] = "ram"
			}
			if (mode == "base") {
				if (!b) exit 1
				print s[first]
				exit
			}
			if (mode == "others") {
				for (i = 1; i <= n; i++)
					if (cat[i] == "anon" && r[i] > 0) printf "%s %d %d\n", range[i], r[i], size[i]
				exit
			}
			for (i = 1; i <= n; i++) {
				k = cat[i] == "anon" || cat[i] == "merged" ? "other" : cat[i]
				rss[k] += r[i]; pss[k] += p[i]; anon[k] += a[i]
			}
			k = split("ram vmlinux image bin heap other", c, " ")
			for (i = 1; i <= k; i++) printf "%s %d %d %d\n", c[i], rss[c[i]], pss[c[i]], anon[c[i]]
		}' "/proc/$1/smaps" || return 1
	[[ "${3:-}" == others || "${3:-}" == base ]] && return 0
	awk '$1 == "Rss:" { r = $2 } $1 == "Pss:" { p = $2 } $1 == "Anonymous:" { a = $2 }
		END { printf "total %d %d %d\n", r, p, a }' "/proc/$1/smaps_rollup"
}


# launch_in_testhost TIMEOUT_S OPTION...: checks the build, then runs the calling script ($0)
# with --in-host BUILD BUILD/bench OPTION... in one boot of the KVM test host
# (ci/kvm-host-run), CC_TESTHOST_TIMEOUT defaulting to TIMEOUT_S, and exits with its status
# (1 when the test host itself failed).
launch_in_testhost() {
	local timeout=$1 build f rc=0 share=()
	shift
	build=${CC_BUILD_DIR:-$root/build}
	for f in "$build/guest/vmlinux" "$build/guest/rootfs.img" "$build/bin/cc-stage0" \
		"$build/stage1-clear-containers.aci" "$build/apps/cc-test-app.aci"; do
		[[ -s "$f" ]] || {
			echo "$me: $f is missing (build the tree, guest-image/build-all $build and" \
				"cmake --build $build --target stage1-aci)" >&2
			exit 1
		}
	done
	build=$(cd "$build" && pwd -P)
	case "$build" in
	"$root"/*) ;;
	*) share=(--share "$build") ;;
	esac
	mkdir -p "$build/bench"
	export CC_TESTHOST_TIMEOUT=${CC_TESTHOST_TIMEOUT:-$timeout}
	"$root/ci/kvm-host-run" "${share[@]}" -- "$here/$(basename "$0")" --in-host "$build" \
		"$build/bench" "$@" || rc=$?
	if ((rc == 125)); then
		echo "$me: the test host itself failed" >&2
		exit 1
	fi
	exit $rc
}
