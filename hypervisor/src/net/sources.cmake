# SPDX-License-Identifier: Apache-2.0
# virtio-net: device model (vnet, vnet-rx, vnet-hdr) and backends (tap, socket).
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/netbe-sock.c
  ${CMAKE_CURRENT_LIST_DIR}/netbe-tap.c
  ${CMAKE_CURRENT_LIST_DIR}/vnet-config.c
  ${CMAKE_CURRENT_LIST_DIR}/vnet-hdr.c
  ${CMAKE_CURRENT_LIST_DIR}/vnet-rx.c
  ${CMAKE_CURRENT_LIST_DIR}/vnet.c
)
