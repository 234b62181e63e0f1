# SPDX-License-Identifier: Apache-2.0
# The lazy stand-in libraries of the guest image (guest-image/lazylib/), built here for the
# host's libraries (the image's come from the same Debian release): libcrypto's, one whose
# real library is missing, liblzma's (older symbol versions), and libccprobe's (what a first
# call carries); and make-lazylib itself.
set(_cc_lazylib ${CMAKE_SOURCE_DIR}/guest-image/lazylib)
foreach(_soname libcrypto.so.3 liblzma.so.5)
  string(MAKE_C_IDENTIFIER "CC_HOST_${_soname}" _var)
  find_file(${_var} ${_soname} PATHS /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu
    NO_DEFAULT_PATH)
  if(NOT ${_var})
    message(FATAL_ERROR "${_soname} not found: the lazylib tests need it (ci/install-deps installs libssl-dev and xz-utils)")
  endif()
endforeach()

# cc_add_lazylib_test(<kind> <soname> <library> <where the stand-in loads it from> [<target>]):
# a stand-in for <library> in build/lazylib/<kind>/, and test-lazylib-<kind>.c linked against
# it; <target> builds <library>.
function(cc_add_lazylib_test KIND SONAME LIB REAL)
  set(_out ${CMAKE_BINARY_DIR}/lazylib/${KIND}/${SONAME})
  add_custom_command(OUTPUT ${_out}
    COMMAND ${_cc_lazylib}/make-lazylib ${LIB} ${REAL} ${_out}
    DEPENDS ${_cc_lazylib}/make-lazylib ${_cc_lazylib}/lazylib.c ${_cc_lazylib}/miss.S ${ARGN}
    VERBATIM)
  add_custom_target(lazylib-${KIND} DEPENDS ${_out})
  # An imported library, linked by its path: the test needs the stand-in's soname and finds it
  # through its build-tree RUNPATH.
  add_library(lazylib-${KIND}-so SHARED IMPORTED)
  set_target_properties(lazylib-${KIND}-so PROPERTIES IMPORTED_LOCATION ${_out}
    IMPORTED_SONAME ${SONAME})
  cc_add_check_test(NAME test-lazylib-${KIND} LABEL unit
    SOURCES ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/test-lazylib-${KIND}.c
    LIBS lazylib-${KIND}-so)
  add_dependencies(test-lazylib-${KIND} lazylib-${KIND})
  target_compile_definitions(test-lazylib-${KIND} PRIVATE CC_LAZY_REAL="${REAL}")
endfunction()

# Sanitizer runtimes refuse dlopen(RTLD_DEEPBIND), which every first call through a stand-in
# makes: sanitized builds leave these out (the plain unit tier runs them).
if(NOT CC_SANITIZE AND NOT CC_FUZZ)
  cc_add_lazylib_test(ok libcrypto.so.3 ${CC_HOST_libcrypto_so_3} ${CC_HOST_libcrypto_so_3})
  cc_add_lazylib_test(broken libcrypto.so.3 ${CC_HOST_libcrypto_so_3}
    /nonexistent/cc-lazy/libcrypto.so.3)
  cc_add_lazylib_test(versions liblzma.so.5 ${CC_HOST_liblzma_so_5} ${CC_HOST_liblzma_so_5})

  # libccprobe, whose functions report what they received (registers, stack, errno, versions).
  add_library(ccprobe SHARED ${CMAKE_CURRENT_LIST_DIR}/probe.c)
  set_target_properties(ccprobe PROPERTIES SOVERSION 1
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lazylib/probe-real)
  target_link_options(ccprobe PRIVATE -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/probe.map)
  set_property(TARGET ccprobe APPEND PROPERTY LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/probe.map)
  set(_cc_probe ${CMAKE_BINARY_DIR}/lazylib/probe-real/libccprobe.so.1)
  cc_add_lazylib_test(probe libccprobe.so.1 ${_cc_probe} ${_cc_probe} ccprobe)
  target_include_directories(test-lazylib-probe PRIVATE ${CMAKE_CURRENT_LIST_DIR})
endif()

# make-lazylib itself: --for, and what it refuses.
add_test(NAME test-make-lazylib
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/test-make-lazylib ${_cc_lazylib}/make-lazylib)
set_tests_properties(test-make-lazylib PROPERTIES LABELS unit TIMEOUT 120)
