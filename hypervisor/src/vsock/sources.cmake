# SPDX-License-Identifier: Apache-2.0
# virtio-vsock in userspace: packet codec, connection state machine, unix-socket muxer, vdev glue.
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/conn.c
  ${CMAKE_CURRENT_LIST_DIR}/handshake.c
  ${CMAKE_CURRENT_LIST_DIR}/muxer.c
  ${CMAKE_CURRENT_LIST_DIR}/packet.c
  ${CMAKE_CURRENT_LIST_DIR}/vsock.c
)
