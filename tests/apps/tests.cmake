# SPDX-License-Identifier: Apache-2.0
#
# The stage1 test apps: one static multi-call program (cc-testapp) packed into one ACI per
# manifest of tests/apps/manifests/, as build/apps/<name>.aci. The e2e tests of
# tests/e2e/stage1 and ci/demo run them in pods through cc-stage0.
add_executable(cc-testapp ${CMAKE_CURRENT_LIST_DIR}/cc-testapp.c ${CMAKE_CURRENT_LIST_DIR}/cc-testapp-tcp.c
  ${CMAKE_CURRENT_LIST_DIR}/cc-testapp-bulk.c ${CMAKE_CURRENT_LIST_DIR}/cc-testapp-hostile.c)

# It runs inside the app's own rootfs, which has no libc: static. Sanitizer runtimes cannot
# be linked statically, so sanitized builds build the program but no images.
if(NOT CC_SANITIZE AND NOT CC_FUZZ)
  target_link_options(cc-testapp PRIVATE -static)
  file(GLOB _cc_app_manifests CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/manifests/*.json)
  set(_cc_app_acis "")
  foreach(_m ${_cc_app_manifests})
    get_filename_component(_n ${_m} NAME_WE)
    set(_aci ${CMAKE_BINARY_DIR}/apps/${_n}.aci)
    add_custom_command(OUTPUT ${_aci}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/apps
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/build-app-aci ${_aci} ${_m} $<TARGET_FILE:cc-testapp>
              ${CMAKE_BINARY_DIR}/apps/${_n}.staging $<TARGET_FILE:cc-manifest>
      DEPENDS ${_m} cc-testapp cc-manifest ${CMAKE_CURRENT_LIST_DIR}/build-app-aci
              ${CMAKE_CURRENT_LIST_DIR}/rootfs/etc/passwd
              ${CMAKE_CURRENT_LIST_DIR}/rootfs/etc/group
              ${CMAKE_SOURCE_DIR}/stage1/aci/make-aci
      COMMENT "test app image apps/${_n}.aci")
    list(APPEND _cc_app_acis ${_aci})
  endforeach()
  add_custom_target(test-apps ALL DEPENDS ${_cc_app_acis})
endif()
