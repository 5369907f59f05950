/*
 * boot.S -- entry of the multiboot2 test kernel (design:
 * tests/vm/mb2/README.md).
 *
 * The multiboot2 header (boot/mb2.h) sits in its own section, which the
 * linker script puts first.  GRUB enters _start in 32-bit protected mode,
 * paging off, EAX = MB2_LOADER_MAGIC, EBX = the MBI's physical address.
 * We build page tables that identity-map the first 4 GiB with 2 MiB
 * pages (the MBI, the modules and the region all lie below 4 GiB), turn
 * on PAE, long mode and paging, load a 64-bit GDT and call
 * kmain(magic, mbi) in 64-bit mode, where common/ runs as the same x86-64
 * code that kdt.ko and the tools are.  Interrupts stay off throughout.
 */
#include "boot/mb2.h"

	.section .multiboot2, "a"
	.balign	MB2_HEADER_ALIGN
mb2_header:
	.long	MB2_HEADER_MAGIC
	.long	MB2_ARCH_I386
	.long	mb2_header_end - mb2_header
	.long	0x100000000 - (MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	.balign	8
	.word	MB2_HTAG_END, 0		/* end tag: type, flags */
	.long	8			/* size */
mb2_header_end:

	.section .text
	.code32
	.globl	_start
_start:
	cli
	cld
	movl	$boot_stack_top, %esp
	movl	%eax, boot_magic
	movl	%ebx, boot_mbi

	/* page tables: clear, then PML4[0] -> PDPT, PDPT[0..3] -> PD0..3 */
	movl	$boot_pml4, %edi
	xorl	%eax, %eax
	movl	$(6 * 4096 / 4), %ecx
	rep stosl
	movl	$boot_pdpt, %eax
	orl	$3, %eax			/* present, writable */
	movl	%eax, boot_pml4
	movl	$boot_pd, %eax
	orl	$3, %eax
	movl	$boot_pdpt, %edi
	movl	$4, %ecx
1:	movl	%eax, (%edi)
	addl	$4096, %eax
	addl	$8, %edi
	loop	1b
	/* 2048 entries of 2 MiB: present, writable, large page */
	movl	$boot_pd, %edi
	movl	$0x83, %eax
	xorl	%edx, %edx
	movl	$2048, %ecx
2:	movl	%eax, (%edi)
	movl	%edx, 4(%edi)
	addl	$0x200000, %eax
	adcl	$0, %edx
	addl	$8, %edi
	loop	2b

	movl	$boot_pml4, %eax
	movl	%eax, %cr3
	movl	%cr4, %eax
	orl	$0x20, %eax			/* PAE */
	andl	$~0x1000, %eax			/* no LA57: 4-level tables */
	movl	%eax, %cr4
	movl	$0xc0000080, %ecx		/* EFER */
	rdmsr
	orl	$0x100, %eax			/* LME */
	wrmsr
	movl	%cr0, %eax
	orl	$0x80000001, %eax		/* PG, PE */
	movl	%eax, %cr0
	lgdt	boot_gdt_ptr
	ljmp	$0x08, $long_entry

	.code64
long_entry:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movw	%ax, %fs
	movw	%ax, %gs
	movq	$boot_stack_top, %rsp
	movl	boot_magic, %edi
	movl	boot_mbi, %esi
	call	kmain
3:	cli
	hlt
	jmp	3b

	.section .rodata
	.balign	8
boot_gdt:
	.quad	0
	.quad	0x00af9a000000ffff		/* 0x08: 64-bit code */
	.quad	0x00cf92000000ffff		/* 0x10: data */
boot_gdt_end:
boot_gdt_ptr:
	.word	boot_gdt_end - boot_gdt - 1
	.long	boot_gdt

	.section .data
	.balign	4
boot_magic:	.long 0
boot_mbi:	.long 0

	.section .bss
	.balign	4096
boot_pml4:	.skip 4096
boot_pdpt:	.skip 4096
boot_pd:	.skip 4 * 4096
	.balign	16
boot_stack:	.skip 65536
boot_stack_top:
	.section .note.GNU-stack, "", @progbits
