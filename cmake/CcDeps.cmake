# SPDX-License-Identifier: Apache-2.0
# Every dependency is found with pkg-config (ci/install-deps installs them on Debian 12).
find_package(PkgConfig REQUIRED)
pkg_check_modules(JSONC REQUIRED IMPORTED_TARGET json-c)
pkg_check_modules(CHECK REQUIRED IMPORTED_TARGET check)
pkg_check_modules(SECCOMP REQUIRED IMPORTED_TARGET libseccomp)
pkg_check_modules(CAPNG REQUIRED IMPORTED_TARGET libcap-ng)
# sd-bus, for cc-stage1-machined alone: the one dynamically linked stage1 program (Debian ships
# no static libsystemd), run through the stage1 image's own loader (docs/stage1.md).
pkg_check_modules(SYSTEMD REQUIRED IMPORTED_TARGET libsystemd)
find_package(Threads REQUIRED)

# Not required while no code uses it (docs/architecture.md, "Libraries"): libfdt (for the
# arm64 device tree, not built yet).

# Static linking for the host-side stage1 programs, which must run on any x86_64 glibc host:
# a target with the property CC_STATIC set to ON links the static archives of json-c,
# libseccomp and libcap-ng instead of the shared objects (see cc_target_link_static()).
foreach(_cc_dep JSONC SECCOMP CAPNG)
  get_target_property(_cc_libs PkgConfig::${_cc_dep} INTERFACE_LINK_LIBRARIES)
  set(_cc_new_libs "")
  foreach(_cc_lib ${_cc_libs})
    string(REGEX REPLACE "\\.so$" ".a" _cc_static "${_cc_lib}")
    if(NOT _cc_static STREQUAL _cc_lib AND EXISTS "${_cc_static}")
      list(APPEND _cc_new_libs "$<IF:$<BOOL:$<TARGET_PROPERTY:CC_STATIC>>,${_cc_static},${_cc_lib}>")
    else()
      list(APPEND _cc_new_libs "${_cc_lib}")
    endif()
  endforeach()
  set_target_properties(PkgConfig::${_cc_dep} PROPERTIES INTERFACE_LINK_LIBRARIES "${_cc_new_libs}")
endforeach()

# cc_target_link_static(<target>): link <target> with -static and the archives above.
# Sanitizer runtimes cannot be linked statically: sanitized builds stay dynamic.
function(cc_target_link_static TARGET)
  if(NOT CC_SANITIZE AND NOT CC_FUZZ)
    set_target_properties(${TARGET} PROPERTIES CC_STATIC ON)
    target_link_options(${TARGET} PRIVATE -static)
  endif()
endfunction()
