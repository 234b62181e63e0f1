# SPDX-License-Identifier: Apache-2.0
# Sourced by the run tests: lay out a two-app pod dir by hand exactly as rkt 1.30 does
# (stage1-contract.md b.1), without rkt.

# make_pod DIR [VOLUMES_JSON MOUNTS_JSON]: a two-app pod as rkt lays it out.
make_pod() {
	local d=$1 vols=${2:-} mounts=${3:-}
	mkdir -p "$d/stage1/rootfs/rkt/status" "$d/stage1/rootfs/rkt/env" "$d/stage1/rootfs/cc" \
		"$d/stage1/rootfs/opt/stage2"
	# A kernel file: run names the host-wide kernel pages file after it and sizes it.
	printf 'a kernel without a build ID\n' >"$d/stage1/rootfs/cc/vmlinux"
	for app in one two; do
		mkdir -p "$d/appsinfo/$app" "$d/stage1/rootfs/opt/stage2/$app/rootfs/bin" \
			"$d/stage1/rootfs/opt/stage2/$app/rootfs/etc"
		printf 'root:x:0:0:root:/root:/bin/sh\n' >"$d/stage1/rootfs/opt/stage2/$app/rootfs/etc/passwd"
		printf 'root:x:0:\n' >"$d/stage1/rootfs/opt/stage2/$app/rootfs/etc/group"
		cat >"$d/appsinfo/$app/manifest" <<JSON
{"acKind":"ImageManifest","acVersion":"0.8.11","name":"example.com/$app",
 "labels":[{"name":"os","value":"linux"},{"name":"arch","value":"amd64"}],
 "app":{"exec":["/bin/$app"],"user":"0","group":"0"}}
JSON
	done
	cat >"$d/pod" <<JSON
{"acVersion":"1.30.0+git171c416f","acKind":"PodManifest","apps":[
 {"name":"one","image":{"name":"example.com/one","id":"sha512-0123456789abcdef"},
  "app":{"exec":["/bin/one"],"user":"0","group":"0"},"mounts":[${mounts}]},
 {"name":"two","image":{"name":"example.com/two","id":"sha512-0123456789abcdef"},
  "app":{"exec":["/bin/two"],"user":"0","group":"0"}}],
 "volumes":[${vols}],
 "annotations":[{"name":"coreos.com/rkt/stage1/mutable","value":"false"}]}
JSON
	touch "$d/pod-created"
}

