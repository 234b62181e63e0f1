# SPDX-License-Identifier: Apache-2.0
# The lazy stand-in library of the guest image (guest-image/lazylib/), built here for the
# host's libcrypto (the image's comes from the same Debian release): one stand-in that loads
# the real library, one whose real library is missing.
find_file(CC_HOST_LIBCRYPTO libcrypto.so.3 PATHS /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu
  NO_DEFAULT_PATH)
if(NOT CC_HOST_LIBCRYPTO)
  message(FATAL_ERROR "libcrypto.so.3 not found: the lazylib tests need it (ci/install-deps installs it, through libssl-dev)")
endif()
set(_cc_lazylib ${CMAKE_SOURCE_DIR}/guest-image/lazylib)
foreach(_kind ok broken)
  if(_kind STREQUAL ok)
    set(_real ${CC_HOST_LIBCRYPTO})
  else()
    set(_real /nonexistent/cc-lazy/libcrypto.so.3)
  endif()
  set(_out ${CMAKE_BINARY_DIR}/lazylib/${_kind}/libcrypto.so.3)
  add_custom_command(OUTPUT ${_out}
    COMMAND ${_cc_lazylib}/make-lazylib ${CC_HOST_LIBCRYPTO} ${_real} ${_out}
    DEPENDS ${_cc_lazylib}/make-lazylib ${_cc_lazylib}/lazylib.c ${_cc_lazylib}/miss.S
    VERBATIM)
  add_custom_target(lazylib-${_kind} DEPENDS ${_out})
  # Linked by path: the test needs libcrypto.so.3 (the stand-in's soname) and finds it
  # through its build-tree RUNPATH.
  cc_add_check_test(NAME test-lazylib-${_kind} LABEL unit
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-lazylib-${_kind}.c
    LIBS ${_out})
  add_dependencies(test-lazylib-${_kind} lazylib-${_kind})
  target_compile_definitions(test-lazylib-${_kind} PRIVATE CC_LAZY_REAL="${_real}")
endforeach()
