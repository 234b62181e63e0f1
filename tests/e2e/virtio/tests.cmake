# SPDX-License-Identifier: Apache-2.0
# e2e, virtio: Linux's virtio_mmio + virtio_console drivers against cc-vmm (hvc0 only).
# (Included after tests/e2e/tests.cmake, which defines cc_add_e2e_test.)
cc_add_e2e_test(virtio-console-linux virtio/console-linux)
