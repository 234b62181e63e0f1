# SPDX-License-Identifier: Apache-2.0
# e2e, the pod agent's guest pieces: cc.mount, cc-agent (enter), cc-app-exit and stop on a
# hand-made pod dir under cc-vmm in the KVM test host (three guest boots in one test-host boot).
cc_add_e2e_test(agent-guest agent/guest-agent)
