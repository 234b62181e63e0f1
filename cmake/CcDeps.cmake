# SPDX-License-Identifier: Apache-2.0
# Every dependency is found with pkg-config (ci/install-deps installs them on Debian 12).
find_package(PkgConfig REQUIRED)
pkg_check_modules(JSONC REQUIRED IMPORTED_TARGET json-c)
pkg_check_modules(CHECK REQUIRED IMPORTED_TARGET check)
pkg_check_modules(SECCOMP REQUIRED IMPORTED_TARGET libseccomp)
pkg_check_modules(CAPNG REQUIRED IMPORTED_TARGET libcap-ng)
pkg_check_modules(SYSTEMD REQUIRED IMPORTED_TARGET libsystemd)
find_package(Threads REQUIRED)

# Debian 12's libfdt-dev ships no .pc file: try pkg-config first, then the plain paths.
pkg_check_modules(FDT IMPORTED_TARGET libfdt)
if(NOT FDT_FOUND)
  find_path(FDT_INCLUDE_DIR libfdt.h REQUIRED)
  find_library(FDT_LIBRARY fdt REQUIRED)
  add_library(PkgConfig::FDT UNKNOWN IMPORTED)
  set_target_properties(PkgConfig::FDT PROPERTIES
    IMPORTED_LOCATION ${FDT_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${FDT_INCLUDE_DIR})
endif()
