# SPDX-License-Identifier: Apache-2.0
# virtio-balloon: the device model (inflate, deflate, free page reporting).
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/vballoon.c
)
