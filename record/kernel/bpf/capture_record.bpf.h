// SPDX-License-Identifier: GPL-2.0
/* A record's way into the ring, for the records built in a task's scratch
 * (strings, call stacks), with the call stack part under -g (capture_abi.h,
 * docs/internals.md "Call stacks"); what both capture programs use. */
#ifndef USDT_RECORD_KERNEL_BPF_CAPTURE_RECORD_BPF_H
#define USDT_RECORD_KERNEL_BPF_CAPTURE_RECORD_BPF_H

#include "capture_common.bpf.h"

/* Copies up to room bytes of the user stack from sp to dst, as the kernel
 * copies a perf sample's stack dump: up to the first page that cannot be
 * read (the top of the stack's mapping; no fault is taken). Returns the
 * bytes read. room: dst's size, a value of the configuration.
 *
 * A read that runs past the top of the stack fails whole, and a failed
 * read (a fault the kernel then fixes up) is costly, so where the task's
 * stack ended at an earlier hit is kept (*stack_end) and the copy stops
 * there: one read per hit, which fails only when the task runs on another
 * stack (a signal stack, a coroutine's), and is then redone up to the first
 * page that cannot be read. */
static __always_inline __u32 copy_user_stack(__u8 *dst, const __u32 room, __u64 sp,
                                             __u64 *stack_end) {
  __u64 want = room;
  if (*stack_end > sp) want = *stack_end - sp;
  CLAMP(want, room);
  if (bpf_probe_read_user(dst, want, (const void *)sp) == 0) return want;
  /* The pages after sp's own, one byte of each, up to the first that fails. */
  __u64 readable = 4096 - (sp & 4095);
  for (int page = 0; page < USDT_BPF_DWARF_BYTES_MAX / 4096 + 1; ++page) {
    if (readable >= room) break;
    __u8 probe;
    if (bpf_probe_read_user(&probe, 1, (const void *)(sp + readable)) != 0) break;
    readable += 4096;
  }
  CLAMP(readable, room);
  if (bpf_probe_read_user(dst, readable, (const void *)sp) != 0) return 0;
  *stack_end = readable < room ? sp + readable : 0;
  return readable;
}

/* -g fp: the stack part at `part` of a record built in a scratch area
 * (room for USDT_BPF_SCRATCH_HALF bytes from there): %rbp, %rsp, the
 * site's window of the stack for the caller repair, then the kernel's
 * frame-pointer callchain (bpf_get_stack, as perf's PERF_SAMPLE_CALLCHAIN
 * walks it). Returns its size. */
static __always_inline __u32 fill_fp_stack(struct pt_regs *ctx, const struct usdt_bpf_site *site,
                                           __u8 *part) {
  struct usdt_bpf_stack_head *head = (struct usdt_bpf_stack_head *)part;
  __u64 *regs = (__u64 *)(head + 1);
  const __u64 sp = REG_FIELD(ctx, rsp);
  regs[0] = REG_FIELD(ctx, rbp);
  regs[1] = sp;
  __u32 room = ((__u32)site->stack_window + 7) & ~7u;
  if (room > USDT_BPF_FP_WINDOW_MAX) room = USDT_BPF_FP_WINDOW_MAX;
  __u8 *window = (__u8 *)(regs + USDT_BPF_FP_REGS);
  __u32 got = 0;
  if (room != 0 && bpf_probe_read_user(window, room, (const void *)sp) == 0) {
    got = room;
  } else if (room != 0) {
    /* The window crosses into a page that cannot be read: up to it. */
    __u32 first = 4096 - (__u32)(sp & 4095);
    if (first < room && bpf_probe_read_user(window, first, (const void *)sp) == 0) got = first;
  }
  __u32 depth = config.stack_depth;
  if (depth > USDT_BPF_FP_DEPTH_MAX) depth = USDT_BPF_FP_DEPTH_MAX;
  long bytes = bpf_get_stack(ctx, window + room, depth * 8, BPF_F_USER_STACK);
  if (bytes < 0) bytes = 0;
  head->frames = (__u32)bytes / 8;
  head->stack_size = got;
  head->stack_room = room;
  head->regs = USDT_BPF_FP_REGS;
  return sizeof(*head) + 8 * USDT_BPF_FP_REGS + room + ((__u32)bytes & ~7u);
}

/* -g dwarf: the bytes of a record's stack part. */
static __always_inline __u32 dwarf_stack_bytes(void) {
  return sizeof(struct usdt_bpf_stack_head) + 8 * USDT_BPF_DWARF_REGS + config.stack_bytes;
}

/* -g dwarf: the stack part (dwarf_stack_bytes()) at part: the registers
 * DWARF unwinding uses, in perf's order, and the stack copy. */
static __always_inline void fill_dwarf_stack(struct pt_regs *ctx, __u8 *part,
                                             __u64 *stack_end) {
  struct usdt_bpf_stack_head *head = (struct usdt_bpf_stack_head *)part;
  __u64 *regs = (__u64 *)(head + 1);
  regs[0] = REG_FIELD(ctx, rax);
  regs[1] = REG_FIELD(ctx, rbx);
  regs[2] = REG_FIELD(ctx, rcx);
  regs[3] = REG_FIELD(ctx, rdx);
  regs[4] = REG_FIELD(ctx, rsi);
  regs[5] = REG_FIELD(ctx, rdi);
  regs[6] = REG_FIELD(ctx, rbp);
  regs[7] = REG_FIELD(ctx, rsp);
  regs[8] = REG_FIELD(ctx, rip);
  regs[9] = REG_FIELD(ctx, r8);
  regs[10] = REG_FIELD(ctx, r9);
  regs[11] = REG_FIELD(ctx, r10);
  regs[12] = REG_FIELD(ctx, r11);
  regs[13] = REG_FIELD(ctx, r12);
  regs[14] = REG_FIELD(ctx, r13);
  regs[15] = REG_FIELD(ctx, r14);
  regs[16] = REG_FIELD(ctx, r15);
  const __u32 room = config.stack_bytes;
  head->frames = 0;
  head->stack_room = room;
  head->regs = USDT_BPF_DWARF_REGS;
  head->stack_size =
      copy_user_stack((__u8 *)(regs + USDT_BPF_DWARF_REGS), room, regs[7], stack_end);
}

/* Hands a record built in the scratch (its first `at` bytes) to the ring,
 * with its call stack part when the recording takes stacks. */
static __always_inline int output_record(struct pt_regs *ctx, const struct usdt_bpf_site *site,
                                         __u32 site_id, __u32 cpu, struct scratch_area *area,
                                         __u32 at) {
  /* The head, arguments and strings end below the first half (append_string). */
  at = (at + 7) & ~7u;
  if (at > USDT_BPF_SCRATCH_HALF - 8) at = USDT_BPF_SCRATCH_HALF - 8;
  BOUND(at, USDT_BPF_SCRATCH_HALF - 8);
  if (config.call_graph == USDT_BPF_STACKS_DWARF) {
    /* The stack copy goes straight into the ring: a reservation of a size
     * known only now, through a dynptr, whose stack part is a slice of a
     * size the verifier knows. */
    const __u32 tail = dwarf_stack_bytes();
    struct bpf_dynptr record;
    const __u64 flags = wakeup_flags(at + tail);
    if (bpf_ringbuf_reserve_dynptr(&records, at + tail, 0, &record) != 0) {
      bpf_ringbuf_discard_dynptr(&record, 0);
      count_lost(site_id, cpu);
      return 0;
    }
    __u8 *part = bpf_dynptr_data(&record, at, tail);
    if (!part || bpf_dynptr_write(&record, 0, area->bytes, at, 0) != 0) {
      bpf_ringbuf_discard_dynptr(&record, 0);
      return 0;
    }
    fill_dwarf_stack(ctx, part, &area->stack_end);
    bpf_ringbuf_submit_dynptr(&record, flags);
    return 0;
  }
  __u64 size = at;
  if (config.call_graph == USDT_BPF_STACKS_FP) {
    size += fill_fp_stack(ctx, site, area->bytes + at);
  }
  size &= 2 * USDT_BPF_SCRATCH_HALF - 1; /* a bound the verifier sees */
  if (bpf_ringbuf_output(&records, area->bytes, size, wakeup_flags(size)) != 0) {
    count_lost(site_id, cpu);
  }
  return 0;
}

/* The scratch area of the hitting task; counts the hit lost when there is none. */
static __always_inline struct scratch_area *task_area(__u32 site_id, __u32 cpu) {
  struct scratch_area *area = bpf_task_storage_get(&task_scratch, bpf_get_current_task_btf(), 0,
                                                   BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!area) count_lost(site_id, cpu);
  return area;
}

#endif
