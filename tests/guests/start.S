/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Entry of every test guest: 64-bit mode, %rsi = boot_params (the Linux 64-bit boot
 * protocol). Save the entry registers for the checks, set up a stack in .bss and call
 * guest_main(boot_params). If it returns, reset through the i8042.
 */
	.section .text.start, "ax"
	.code64
	.globl _start
_start:
	leaq stack_top(%rip), %rsp
	movq %rsi, entry_rsi(%rip)
	pushfq
	popq %rax
	movq %rax, entry_rflags(%rip)
	movq %rsi, %rdi
	call guest_main
	movb $0xfe, %al
	outb %al, $0x64
1:	cli
	hlt
	jmp 1b

	/* Real-mode trampoline for the second vCPU (copied to 0x8000, started by SIPI 0x08):
	 * mark itself present at 0x8100 and halt. */
	.globl ap_trampoline, ap_trampoline_end
	.code16
ap_trampoline:
	movb $0xa5, %cs:0x100
2:	cli
	hlt
	jmp 2b
ap_trampoline_end:
	.code64

	/* Padding so that the text segment has full pages to map from the file. */
	.section .rodata.pad, "a"
	.fill 8192, 1, 0x90

	.bss
	.balign 16
	.globl entry_rsi, entry_rflags
entry_rsi:
	.quad 0
entry_rflags:
	.quad 0
	.balign 4096
stack:
	.skip 16384
stack_top:
