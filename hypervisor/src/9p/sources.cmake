# SPDX-License-Identifier: Apache-2.0
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/9p-buf.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-budget.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-dev.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-dir.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-fid.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-hostvol.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-file.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-meta.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-pdu.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-wire.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-worker.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-worker-broker.c
  ${CMAKE_CURRENT_LIST_DIR}/9p-worker-client.c
  ${CMAKE_CURRENT_LIST_DIR}/9p.c
  ${CMAKE_CURRENT_LIST_DIR}/fs-broker.c
  ${CMAKE_CURRENT_LIST_DIR}/fs-broker-client.c
  ${CMAKE_CURRENT_LIST_DIR}/fs-broker-msg.c
  ${CMAKE_CURRENT_LIST_DIR}/fs-passthrough.c
  ${CMAKE_CURRENT_LIST_DIR}/hostvol-policy.c
)
