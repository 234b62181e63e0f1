# SPDX-License-Identifier: Apache-2.0
# e2e: pod networking with a real guest through cc-stage0 in the KVM test host
# (docs/networking.md, "Integration"): --net=default reaches the guest, gc leaves nothing.
cc_add_e2e_test(stage1-net stage1-net/pods-net)
