# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154,SC2034 # the variables are the sourcing script's (tests/e2e/stage1/pods)
#
# Helpers of the stage1 e2e tests (sourced). Pods run through cc-stage0 with --dir on the test
# host's ext4 (/var/tmp: the VMM's exports are idmapped, which L1's 6.1 tmpfs cannot be); each pod's console (run's stdout) and stderr are kept in $tmp/<name>.{out,err}.

fail=0
failed() {
	echo "$me: FAIL: $*" >&2
	fail=1
}
ok() { echo "$me: ok: $*"; }
# want WHAT GOT EXPECTED
want() {
	if [[ "$2" == "$3" ]]; then ok "$1 = $3"; else failed "$1: got '$2', expected '$3'"; fi
}

# The pod's console with the guest's CR LF line ends removed.
console() { tr -d '\r' <"$tmp/$1.out"; }
# says POD APP TEXT: the app printed the line TEXT (cc-testapp's "cc-test[APP] TEXT").
says() {
	# not grep -q: it may exit before tr has written the console, whose SIGPIPE pipefail counts
	if console "$1" | grep -F "cc-test[$2] $3" >/dev/null; then
		ok "[$1] $2 says '$3'"
	else
		failed "[$1] $2 did not say '$3'"
	fi
}
# said POD APP PREFIX: the rest of the first line "cc-test[APP] PREFIX..." (empty if none).
said() {
	local l
	l=$(console "$1" | grep -aF "cc-test[$2] $3" | head -n1)
	l=${l#*"cc-test[$2] $3"}
	printf '%s' "$l"
}

# $local_config, when set: cc-stage0's --local-config (rkt's; run and gc read net.d/ there)
stage0() { "$build/bin/cc-stage0" --dir="$data" ${local_config:+"--local-config=$local_config"} "$@"; }
uuid_of() { cat "$tmp/$1.uuid" 2>/dev/null; }
pod_dir() { echo "$data/pods/run/$(uuid_of "$1")"; }
status_of() { stage0 status "$(uuid_of "$1")" | sed -n "s/^$2=//p"; }

# runpod NAME RUN-ARGS...: run a pod in the foreground (bounded); sets $rc.
runpod() {
	local name=$1 start
	shift
	start=${EPOCHREALTIME/./}
	rc=0
	timeout -k 10 "$pod_timeout" "$build/bin/cc-stage0" --dir="$data" run \
		--stage1="$stage1" --uuid-file-save="$tmp/$name.uuid" "$@" \
		</dev/null >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	echo "--- [$name] run exit $rc after $(((${EPOCHREALTIME/./} - start) / 1000)) ms; console:"
	console "$name"
	echo "--- [$name] stderr:"
	cat "$tmp/$name.err"
	echo "--- [$name] end"
}

# startpod NAME RUN-ARGS...: run a pod in the background; $bgpid is its cc-stage0 (then run).
startpod() {
	local name=$1
	shift
	stage0 run --stage1="$stage1" \
		--uuid-file-save="$tmp/$name.uuid" "$@" </dev/null >"$tmp/$name.out" \
		2>"$tmp/$name.err" &
	bgpid=$!
}

# wait_for POD TEXT: until the console has TEXT (up to $boot_timeout s); prints the ms waited.
wait_for() {
	local start=${EPOCHREALTIME/./} deadline=$((SECONDS + boot_timeout))
	while ! console "$1" | grep -F "$2" >/dev/null; do
		if ((SECONDS >= deadline)) || ! kill -0 "$bgpid" 2>/dev/null; then
			failed "[$1] no '$2' on the console"
			return 1
		fi
		sleep 0.1
	done
	echo "$(((${EPOCHREALTIME/./} - start) / 1000))"
}

# wait_exit POD: wait (bounded) for the background pod's run; sets $rc.
wait_exit() {
	local deadline=$((SECONDS + ${2:-120}))
	while kill -0 "$bgpid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
	if kill -0 "$bgpid" 2>/dev/null; then
		failed "[$1] run did not end"
		kill -KILL "$bgpid" 2>/dev/null
	fi
	rc=0
	wait "$bgpid" || rc=$?
	echo "--- [$1] run exit $rc; console:"
	console "$1"
	echo "--- [$1] stderr:"
	cat "$tmp/$1.err"
	echo "--- [$1] end"
}

# one_line_error NAME PREFIX: the pod's stderr is exactly one line starting with PREFIX.
one_line_error() {
	local n
	n=$(grep -c '' "$tmp/$1.err")
	if ((n == 1)) && grep -q "^$2" "$tmp/$1.err"; then
		ok "[$1] one line on stderr: $(cat "$tmp/$1.err")"
	else
		failed "[$1] expected one line starting '$2' on stderr, got $n: $(cat "$tmp/$1.err")"
	fi
}

# no_vmm_left NAME: no process left that belongs to the pod (its UUID on the command line, or
# its machine ID: the jailed VMM's paths do not name the pod dir, its guest command line does).
no_vmm_left() {
	local u
	u=$(uuid_of "$1")
	[[ -n "$u" ]] || return 0
	if pgrep -f -- "$u|${u//-/}" >/dev/null; then
		failed "[$1] processes left: $(pgrep -af -- "$u|${u//-/}")"
	else
		ok "[$1] no process left"
	fi
}
