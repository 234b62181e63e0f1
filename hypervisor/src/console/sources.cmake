# SPDX-License-Identifier: Apache-2.0
# virtio-console: the device model (console.c) and its host backend (console-fd.c).
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/console-fd.c
  ${CMAKE_CURRENT_LIST_DIR}/console.c
)
