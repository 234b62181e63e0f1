# SPDX-License-Identifier: Apache-2.0
# virtio-blk: device model (vblk, vblk-req) and backends (raw file, in-memory).
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/blk-iov.c
  ${CMAKE_CURRENT_LIST_DIR}/blkbe-mem.c
  ${CMAKE_CURRENT_LIST_DIR}/blkbe-raw.c
  ${CMAKE_CURRENT_LIST_DIR}/vblk-req.c
  ${CMAKE_CURRENT_LIST_DIR}/vblk.c
)
