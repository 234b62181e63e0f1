# SPDX-License-Identifier: Apache-2.0
# The lazy stand-in libraries of the guest image (guest-image/lazylib/), built here for the
# host's libraries (the image's come from the same Debian release): libcrypto's, one whose
# real library is missing, and liblzma's (older symbol versions); and make-lazylib itself.
set(_cc_lazylib ${CMAKE_SOURCE_DIR}/guest-image/lazylib)
foreach(_soname libcrypto.so.3 liblzma.so.5)
  string(MAKE_C_IDENTIFIER "CC_HOST_${_soname}" _var)
  find_file(${_var} ${_soname} PATHS /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu
    NO_DEFAULT_PATH)
  if(NOT ${_var})
    message(FATAL_ERROR "${_soname} not found: the lazylib tests need it (ci/install-deps installs libssl-dev and xz-utils)")
  endif()
endforeach()

# cc_add_lazylib_test(<kind> <library> <where the stand-in loads it from>): a stand-in for
# <library> in build/lazylib/<kind>/, and test-lazylib-<kind>.c linked against it.
function(cc_add_lazylib_test KIND LIB REAL)
  get_filename_component(_name ${LIB} NAME)
  set(_out ${CMAKE_BINARY_DIR}/lazylib/${KIND}/${_name})
  add_custom_command(OUTPUT ${_out}
    COMMAND ${_cc_lazylib}/make-lazylib ${LIB} ${REAL} ${_out}
    DEPENDS ${_cc_lazylib}/make-lazylib ${_cc_lazylib}/lazylib.c ${_cc_lazylib}/miss.S
    VERBATIM)
  add_custom_target(lazylib-${KIND} DEPENDS ${_out})
  # Linked by path: the test needs the stand-in's soname and finds it through its build-tree
  # RUNPATH.
  cc_add_check_test(NAME test-lazylib-${KIND} LABEL unit
    SOURCES ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/test-lazylib-${KIND}.c
    LIBS ${_out})
  add_dependencies(test-lazylib-${KIND} lazylib-${KIND})
  target_compile_definitions(test-lazylib-${KIND} PRIVATE CC_LAZY_REAL="${REAL}")
endfunction()

cc_add_lazylib_test(ok ${CC_HOST_libcrypto_so_3} ${CC_HOST_libcrypto_so_3})
cc_add_lazylib_test(broken ${CC_HOST_libcrypto_so_3} /nonexistent/cc-lazy/libcrypto.so.3)
cc_add_lazylib_test(versions ${CC_HOST_liblzma_so_5} ${CC_HOST_liblzma_so_5})

# make-lazylib itself: --for, and what it refuses.
add_test(NAME test-make-lazylib
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/test-make-lazylib ${_cc_lazylib}/make-lazylib)
set_tests_properties(test-make-lazylib PROPERTIES LABELS unit TIMEOUT 120)
