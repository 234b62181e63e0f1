/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The slow path of a lazy stand-in's stubs (make-lazylib): a stub whose slot is still empty
 * jumps here with the slot's index in %r11d, the caller's arguments still in their registers
 * and on the stack. Keep every argument register (%rax too: a variadic call passes the count
 * of vector registers in %al), have cc_lazy_resolve() load the real library and return the
 * function, restore them and jump to it, so that it returns straight to the caller.
 */
	.section .note.GNU-stack, "", @progbits
	.text
	.p2align 4
	.globl cc_lazy_miss
	.hidden cc_lazy_miss
	.type cc_lazy_miss, @function
cc_lazy_miss:
	.cfi_startproc
	/* Entered by a jump from the stub the caller called: %rsp is 8 mod 16. */
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq %rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq $192, %rsp
	movq %rdi, 0(%rsp)
	movq %rsi, 8(%rsp)
	movq %rdx, 16(%rsp)
	movq %rcx, 24(%rsp)
	movq %r8, 32(%rsp)
	movq %r9, 40(%rsp)
	movq %rax, 48(%rsp)
	movq %r10, 56(%rsp)
	movdqa %xmm0, 64(%rsp)
	movdqa %xmm1, 80(%rsp)
	movdqa %xmm2, 96(%rsp)
	movdqa %xmm3, 112(%rsp)
	movdqa %xmm4, 128(%rsp)
	movdqa %xmm5, 144(%rsp)
	movdqa %xmm6, 160(%rsp)
	movdqa %xmm7, 176(%rsp)
	movl %r11d, %edi
	call cc_lazy_resolve
	movq %rax, %r11
	movq 0(%rsp), %rdi
	movq 8(%rsp), %rsi
	movq 16(%rsp), %rdx
	movq 24(%rsp), %rcx
	movq 32(%rsp), %r8
	movq 40(%rsp), %r9
	movq 48(%rsp), %rax
	movq 56(%rsp), %r10
	movdqa 64(%rsp), %xmm0
	movdqa 80(%rsp), %xmm1
	movdqa 96(%rsp), %xmm2
	movdqa 112(%rsp), %xmm3
	movdqa 128(%rsp), %xmm4
	movdqa 144(%rsp), %xmm5
	movdqa 160(%rsp), %xmm6
	movdqa 176(%rsp), %xmm7
	leave
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	jmp *%r11
	.cfi_endproc
	.size cc_lazy_miss, .-cc_lazy_miss
