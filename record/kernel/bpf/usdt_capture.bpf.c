// SPDX-License-Identifier: GPL-2.0
/* The capture program of usdt-record's BPF path for the sites whose
 * arguments are registers and constants (docs/internals.md, "The BPF
 * capture path"). Compiled at build time with clang -target bpf and
 * embedded in the recorder (a bpftool skeleton); nothing is compiled at run
 * time. usdt_capture_faulting.bpf.c takes the sites that read memory or
 * strings; capture_common.bpf.h holds what both share.
 *
 * It is attached to the perf events the recorder opens for its probe sites
 * (the uprobe PMU, or the recorder's tracefs uprobe events) with the site id
 * as the BPF cookie. At each hit it reads the site's arguments from the
 * trapped task's registers, as the site's plan says (capture_abi.h), and
 * writes one record into the ring buffer. It returns 0, so the perf event
 * itself writes no sample: the trap is the only other cost. A record that
 * does not fit in the ring is counted in the lost counters (per site and
 * CPU), never dropped silently.
 *
 * Without call stacks it never reads user memory, and reserves each record
 * in the ring, room for 2, 6 or 12 arguments (a size the verifier knows),
 * and fills it in place. With call stacks (-g) the record is built in the
 * task's scratch area and goes out with its stack part (output_record).
 *
 * The two programs are two objects: the faulting one calls a kfunc, which
 * makes libbpf read and parse the kernel's whole BTF when it loads the
 * object (a few tenths of a second here); a recording that needs only this
 * one pays for neither that nor the other's verification. The recorder
 * creates the maps with this object and hands them to the other
 * (bpf_map__reuse_fd), so both read the same plans and write the same ring.
 *
 * GPL: the ring buffer and stack helpers are GPL-only. */
#include "capture_record.bpf.h"

/* A site of registers and constants: its record, of a size known here,
 * is reserved in the ring and filled in place. */
static __always_inline int capture_registers(struct pt_regs *ctx,
                                             const struct usdt_bpf_site *site, __u32 site_id,
                                             const struct hit_ids *ids, const __u32 slots,
                                             const __u32 count) {
  const __u64 size = sizeof(struct usdt_bpf_record_head) + 8 * slots;
  const __u64 flags = wakeup_flags(size);
  const __u32 cpu = bpf_get_smp_processor_id();
  struct usdt_bpf_record_head *head = bpf_ringbuf_reserve(&records, size, 0);
  if (!head) {
    count_lost(site_id, cpu);
    return 0;
  }
  fill_head(head, ids, site_id, cpu);
  __u64 *values = (__u64 *)(head + 1);
  const __u64 bias = ctx->rip - site->probe_address; /* for $sym of a moved file */
  __u16 missing = 0;
#pragma clang loop unroll(disable)
  for (__u32 i = 0; i < slots; ++i) {
    if (i >= count) break;
    __u64 v = 0;
    if (!direct_value(ctx, &site->args[i], bias, &v)) missing |= (__u16)(1u << i);
    values[i] = v;
  }
  head->missing = missing;
  bpf_ringbuf_submit(head, flags);
  return 0;
}

/* With call stacks: the head and arguments in the task's scratch, then
 * out with the stack part. */
static __always_inline int capture_with_stack(struct pt_regs *ctx,
                                              const struct usdt_bpf_site *site, __u32 site_id,
                                              const struct hit_ids *ids) {
  const __u32 cpu = bpf_get_smp_processor_id();
  struct scratch_area *area = task_area(site_id, cpu);
  if (!area) return 0;
  struct usdt_bpf_record_head *head = (struct usdt_bpf_record_head *)area->bytes;
  fill_head(head, ids, site_id, cpu);
  __u64 *values = (__u64 *)(head + 1);
  const __u64 bias = ctx->rip - site->probe_address;
  __u32 count = site->arg_count;
  if (count > USDT_BPF_MAX_ARGS) count = USDT_BPF_MAX_ARGS;
  __u16 missing = 0;
#pragma clang loop unroll(disable)
  for (__u32 i = 0; i < USDT_BPF_MAX_ARGS; ++i) {
    if (i >= count) break;
    __u64 v = 0;
    if (!direct_value(ctx, &site->args[i], bias, &v)) missing |= (__u16)(1u << i);
    values[i] = v;
  }
  head->missing = missing;
  return output_record(ctx, site, site_id, cpu, area,
                       sizeof(struct usdt_bpf_record_head) + 8 * count);
}

SEC("uprobe")
int usdt_capture(struct pt_regs *ctx) {
  struct hit_ids ids;
  if (!wanted(&ids)) return 0;
  __u32 site_id = (__u32)bpf_get_attach_cookie(ctx);
  const struct usdt_bpf_site *site = bpf_map_lookup_elem(&plans, &site_id);
  if (!site) return 0;
  /* A constant of the loaded program: the verifier checks one path. */
  if (config.call_graph != USDT_BPF_STACKS_NONE) return capture_with_stack(ctx, site, site_id, &ids);
  /* Three record sizes (the verifier checks each path once): up to 2, 6
   * and 12 arguments; the decoder reads as many as the site has. */
  const __u32 count = site->arg_count;
  if (count <= 2) return capture_registers(ctx, site, site_id, &ids, 2, count);
  if (count <= 6) return capture_registers(ctx, site, site_id, &ids, 6, count);
  return capture_registers(ctx, site, site_id, &ids, USDT_BPF_MAX_ARGS, count);
}
