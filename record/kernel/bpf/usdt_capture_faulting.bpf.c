// SPDX-License-Identifier: GPL-2.0
/* The capture program of usdt-record's BPF path for the sites that read
 * memory or strings (docs/internals.md, "The BPF capture path"), beside
 * usdt_capture.bpf.c's for the others, with which it shares its maps
 * (capture_common.bpf.h).
 *
 * It is loaded sleepable (BPF_F_SLEEPABLE) and reads memory and strings as
 * the kernel's own fetch-args do, faulting absent pages in
 * (bpf_copy_from_user, bpf_copy_from_user_str): a string in a page the
 * program never touched is read, not lost. It builds each record in its
 * task's scratch area (a sleepable program may sleep in a fault while
 * another task runs it on the same CPU), then hands it to the ring
 * (output_record), with its call stack part under -g.
 *
 * One argument is read by a global function, which the verifier checks
 * once, whatever the arguments before it did: inlined in the loop over
 * twelve arguments with their strings, the program took the verifier far
 * longer.
 *
 * GPL: bpf_probe_read_user_str and the ring buffer helpers are GPL-only. */
#include "capture_record.bpf.h"

extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign,
                                  __u64 flags) __ksym;

/* The value of an argument (for a string: its pointer), reading memory
 * with faults taken; 0 when it cannot be read. */
static __always_inline int read_value(const struct pt_regs *ctx, const struct usdt_bpf_arg *arg,
                                      __u64 bias, __u64 *value) {
  if (arg->kind != USDT_BPF_ARG_MEM) return direct_value(ctx, arg, bias, value);
  __u64 address = 0;
  if (!memory_address(ctx, arg, bias, &address)) return 0;
  __u32 size = arg->size;
  if (size == 0 || size > 8) return 0;
  __u64 v = 0;
  if (bpf_copy_from_user(&v, size, (const void *)address) != 0) return 0;
  *value = extend(v, (__u8)size, arg->flags & USDT_BPF_ARG_SIGNED);
  return 1;
}

/* Appends the string at `pointer` at offset `at` of the scratch: its
 * length word, then its bytes; returns the offset after it. A NULL or
 * unreadable pointer leaves length 0 and sets *missing. The strings of one
 * record share the scratch's first half, less room for the length words
 * of the strings after this one: a string that does not fit is cut there,
 * and marked so. */
static __always_inline __u32 append_string(__u8 *area, __u32 at, __u64 pointer, int readable,
                                           int *missing) {
  at &= USDT_BPF_SCRATCH_HALF - 1;
  __u32 *length = (__u32 *)(area + at);
  __u32 limit = config.string_bytes;
  if (limit > 4095) limit = 4095;
  /* Room for one byte more than the limit and the NUL: a string that
   * fills it was longer than the limit. */
  __u64 room = limit + 2;
  const __u64 end = USDT_BPF_SCRATCH_HALF - 4 * USDT_BPF_MAX_ARGS;
  const __u64 space = (__u64)at + 4 + 2 < end ? end - at - 4 : 2;
  if (room > space) room = space;
  room &= 8191; /* bounds the verifier sees: the write stays in the scratch */
  if (room < 2) room = 2;
  long got = -1;
  if (readable && pointer != 0) {
    got = bpf_copy_from_user_str(area + at + 4, room, (const void *)pointer, 0);
  }
  if (got <= 0) {
    *length = 0;
    *missing = 1;
    return at + 4;
  }
  __u32 n = (__u32)got - 1;
  __u32 cut = 0;
  if (n > room - 2) {
    n = room - 2;
    cut = USDT_BPF_STRING_CUT;
  }
  *length = n | cut;
  return at + 4 + n;
}

#define ARG_MISSING 0x80000000u

/* One argument of the record being built in area: *value holds the
 * file's load bias on the way in (for a symbol of a moved file) and the
 * argument's value on the way out; a string's length and bytes are
 * appended at `at`. Returns the offset after it, with ARG_MISSING set when
 * it could not be read. The caller indexes the plan and the values: a
 * global function's pointer arguments are checked against their types'
 * sizes, while its scalars are unknown to it (and it takes five at most). */
__noinline __u32 append_argument(struct pt_regs *ctx, const struct usdt_bpf_arg *arg,
                                 struct scratch_area *area, __u32 at, __u64 *value) {
  if (!ctx || !arg || !area || !value) return at | ARG_MISSING;
  const __u64 bias = *value;
  __u64 v = 0;
  int ok = read_value(ctx, arg, bias, &v);
  __u32 missing = ok ? 0 : ARG_MISSING;
  if (arg->flags & USDT_BPF_ARG_STRING) {
    int gone = 0;
    at = append_string(area->bytes, at, v, ok, &gone);
    missing = gone ? ARG_MISSING : 0;
    v = 0;
  }
  *value = v;
  return (at & (USDT_BPF_SCRATCH_HALF - 1)) | missing;
}

SEC("uprobe")
int usdt_capture_faulting(struct pt_regs *ctx) {
  struct hit_ids ids;
  if (!wanted(&ids)) return 0;
  __u32 site_id = (__u32)bpf_get_attach_cookie(ctx);
  const struct usdt_bpf_site *site = bpf_map_lookup_elem(&plans, &site_id);
  if (!site) return 0;
  const __u32 cpu = bpf_get_smp_processor_id();
  struct scratch_area *area = task_area(site_id, cpu);
  if (!area) return 0;
  struct usdt_bpf_record_head *head = (struct usdt_bpf_record_head *)area->bytes;
  fill_head(head, &ids, site_id, cpu);
  __u32 count = site->arg_count;
  if (count > USDT_BPF_MAX_ARGS) count = USDT_BPF_MAX_ARGS;
  __u32 at = sizeof(*head) + 8 * count;
  __u16 missing = 0;
  const __u64 bias = ctx->rip - site->probe_address; /* for a symbol of a moved file */
  __u64 *values = (__u64 *)(area->bytes + sizeof(*head));
  for (__u32 i = 0; i < USDT_BPF_MAX_ARGS; ++i) {
    if (i >= count) break;
    __u64 v = bias;
    const __u32 next = append_argument(ctx, &site->args[i], area, at, &v);
    values[i] = v;
    if (next & ARG_MISSING) missing |= (__u16)(1u << i);
    at = next & ~ARG_MISSING;
  }
  head->missing = missing;
  return output_record(ctx, site, site_id, cpu, area, at);
}
