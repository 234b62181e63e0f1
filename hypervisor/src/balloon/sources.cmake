# SPDX-License-Identifier: Apache-2.0
# virtio-balloon: inflate/deflate and free page reporting give guest RAM back to the host.
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/balloon-map.c
  ${CMAKE_CURRENT_LIST_DIR}/kernel-pages.c
  ${CMAKE_CURRENT_LIST_DIR}/same-pages.c
  ${CMAKE_CURRENT_LIST_DIR}/vballoon.c
  ${CMAKE_CURRENT_LIST_DIR}/zero-pages.c
)
