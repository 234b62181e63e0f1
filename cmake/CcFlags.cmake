# SPDX-License-Identifier: Apache-2.0
# Compiler flags for the whole tree (see docs/style.md, "Build flags").
add_compile_options(
  -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes
  -Wimplicit-fallthrough -Wundef -Wcast-align -Wnull-dereference -Wvla
  -Werror=implicit-function-declaration -Werror=incompatible-pointer-types
  -fno-common -fstack-protector-strong
)
add_compile_definitions(_GNU_SOURCE)
if(CMAKE_BUILD_TYPE MATCHES "Rel")
  add_compile_definitions(_FORTIFY_SOURCE=2)
endif()
if(CC_WERROR)
  add_compile_options(-Werror)
endif()
if(CC_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  add_compile_definitions(CC_SANITIZED=1)
endif()
if(CC_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "CC_FUZZ needs clang (configure with -DCMAKE_C_COMPILER=clang)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  add_compile_definitions(CC_SANITIZED=1 CC_FUZZING=1)
endif()
