# SPDX-License-Identifier: Apache-2.0
# virtio-rng: device model fed by getrandom().
list(APPEND CC_VMM_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/vrng.c
)
