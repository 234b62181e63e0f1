# SPDX-License-Identifier: Apache-2.0
# Virtio transport: split virtqueues, the device <-> transport glue (vdev), virtio-mmio.
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/mmio.c
  ${CMAKE_CURRENT_LIST_DIR}/vdev.c
  ${CMAKE_CURRENT_LIST_DIR}/virtq.c
)
