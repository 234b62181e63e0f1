# SPDX-License-Identifier: Apache-2.0
#
# Freestanding test guests: ELF64 "kernels" that our loader enters in 64-bit mode at e_entry
# with %rsi = boot_params, exactly like a vmlinux. Built with the host compiler but none of the
# project's flags (no sanitizers, no stack protector, no libc), linked by guest.ld at 16 MiB.
# Each becomes build/guests/<name>.elf. Keep them tiny: under PVM every guest instruction is
# emulated (no cmpxchg16b, xsave/xrstor or int3). Every guest links start.S, lib.c (serial, byte
# helpers) and virtio-guest.c (the shared minimal virtio-mmio driver).
#
#   cc_add_test_guest(NAME <name> SOURCES <files relative to tests/guests>)
set(CC_GUEST_DIR ${CMAKE_BINARY_DIR}/guests)
set(CC_GUEST_CFLAGS -ffreestanding -nostdlib -static -fno-pic -mno-red-zone
  -mgeneral-regs-only -mcmodel=small -O2 -fno-stack-protector -fno-asynchronous-unwind-tables
  -fno-builtin -Wall -Wextra -Werror)

function(cc_add_test_guest)
  cmake_parse_arguments(G "" "NAME" "SOURCES" ${ARGN})
  set(_dir ${CMAKE_SOURCE_DIR}/tests/guests)
  set(_srcs ${_dir}/start.S ${_dir}/lib.c ${_dir}/virtio-guest.c)
  foreach(_s ${G_SOURCES})
    list(APPEND _srcs ${_dir}/${_s})
  endforeach()
  set(_out ${CC_GUEST_DIR}/${G_NAME}.elf)
  add_custom_command(OUTPUT ${_out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CC_GUEST_DIR}
    COMMAND ${CMAKE_C_COMPILER} ${CC_GUEST_CFLAGS} -I${_dir} -T ${_dir}/guest.ld
      -Wl,--build-id=none -Wl,-z,max-page-size=4096 -Wl,-z,noexecstack -o ${_out} ${_srcs}
    DEPENDS ${_srcs} ${_dir}/guest.h ${_dir}/virtio-guest.h ${_dir}/guest.ld
    COMMENT "Building test guest ${G_NAME}"
    VERBATIM)
  add_custom_target(guest-${G_NAME} ALL DEPENDS ${_out})
endfunction()

cc_add_test_guest(NAME boot-check SOURCES boot-check.c)
cc_add_test_guest(NAME io-check SOURCES io-check.c)
cc_add_test_guest(NAME triple-fault SOURCES triple-fault.c)
cc_add_test_guest(NAME idle SOURCES idle.c)
cc_add_test_guest(NAME hello SOURCES hello.c)
cc_add_test_guest(NAME smp SOURCES smp.c)
cc_add_test_guest(NAME crash SOURCES crash.c)
cc_add_test_guest(NAME pmem-check SOURCES pmem-check.c)
