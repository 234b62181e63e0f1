# SPDX-License-Identifier: Apache-2.0
# Virtio: split virtqueues and the device <-> transport glue, the virtio-mmio transport, device
# models (dev/) and their host backends (backend/).
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/backend/console-fd.c
  ${CMAKE_CURRENT_LIST_DIR}/dev/console.c
  ${CMAKE_CURRENT_LIST_DIR}/transport/mmio.c
  ${CMAKE_CURRENT_LIST_DIR}/vdev.c
  ${CMAKE_CURRENT_LIST_DIR}/virtq.c
)
