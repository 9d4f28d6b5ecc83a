// SPDX-License-Identifier: GPL-2.0
/* The capture program of usdt-record's BPF path (docs/internals.md, "The
 * BPF capture path"). Compiled at build time with clang -target bpf and
 * embedded in the recorder (a bpftool skeleton); nothing is compiled at run
 * time.
 *
 * It is attached to the perf events the recorder opens for its probe sites
 * (the uprobe PMU, or the recorder's tracefs uprobe events) with the site id
 * as the BPF cookie. At each hit it reads the site's arguments from the
 * trapped task's registers and memory, as the site's plan says
 * (capture_abi.h), and writes one record into the ring buffer. It returns 0,
 * so the perf event itself writes no sample: the trap is the only other
 * cost. A record that does not fit in the ring is counted in the lost
 * counters (per site and CPU), never dropped silently.
 *
 * Two programs of one body. usdt_capture reads memory without faulting
 * (bpf_probe_read_user): for sites whose arguments are registers and
 * constants, it never needs to, and it reserves each record in the ring,
 * room for 2, 6 or 12 arguments, and fills it in place.
 * usdt_capture_faulting is sleepable (the
 * recorder loads it with BPF_F_SLEEPABLE) and reads memory and strings as
 * the kernel's own fetch-args do, faulting absent pages in
 * (bpf_copy_from_user, bpf_copy_from_user_str): a string in a page the
 * program never touched is read, not lost. A sleepable program may sleep
 * in a fault with another task then running on its CPU, so it builds its
 * record in a scratch area of its task (task storage), not of its CPU.
 *
 * GPL: bpf_probe_read_user_str and the ring buffer helpers are GPL-only. */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "capture_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the recorder before the program is loaded. */
const volatile struct usdt_bpf_config config = {};

/* Set by the recorder once every event is enabled, cleared when it stops:
 * a hit before the recording's start or after its end writes nothing. */
volatile __u32 armed = 0;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1); /* the recorder sets it: the sites it may attach */
  __type(key, __u32);
  __type(value, struct usdt_bpf_site);
} plans SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4096); /* the recorder sets it */
} records SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, 1); /* sites x config.cpu_count */
  __type(key, __u32);
  __type(value, __u64);
} lost SEC(".maps");

struct scratch_area {
  __u8 bytes[2 * USDT_BPF_SCRATCH_HALF];
};

/* The faulting program's scratch, one per task that hit a probe. */
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct scratch_area);
} task_scratch SEC(".maps");

extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign,
                                  __u64 flags) __ksym;

/* A field of the trapped task's pt_regs, loaded at its constant offset:
 * an inline load, because clang would otherwise merge the cases of the
 * switch below into one load through a computed ctx pointer, which the
 * verifier refuses ("dereference of modified ctx ptr"). */
#define REG_FIELD(ctx, field)                                                   \
  ({                                                                            \
    __u64 loaded_;                                                              \
    asm volatile("%[out] = *(u64 *)(%[base] + %[at])"                           \
                 : [out] "=r"(loaded_)                                          \
                 : [base] "r"(ctx), [at] "i"(__builtin_offsetof(struct pt_regs, field))); \
    loaded_;                                                                    \
  })

/* Register `reg` (perf's x86 numbering) of the trapped task; 0 when no
 * such register is kept in pt_regs. */
static __always_inline int register_value(const struct pt_regs *ctx, __u8 reg, __u64 *value) {
  switch (reg) {
    case 0: *value = REG_FIELD(ctx, rax); return 1;
    case 1: *value = REG_FIELD(ctx, rbx); return 1;
    case 2: *value = REG_FIELD(ctx, rcx); return 1;
    case 3: *value = REG_FIELD(ctx, rdx); return 1;
    case 4: *value = REG_FIELD(ctx, rsi); return 1;
    case 5: *value = REG_FIELD(ctx, rdi); return 1;
    case 6: *value = REG_FIELD(ctx, rbp); return 1;
    case 7: *value = REG_FIELD(ctx, rsp); return 1;
    case 8: *value = REG_FIELD(ctx, rip); return 1;
    case 16: *value = REG_FIELD(ctx, r8); return 1;
    case 17: *value = REG_FIELD(ctx, r9); return 1;
    case 18: *value = REG_FIELD(ctx, r10); return 1;
    case 19: *value = REG_FIELD(ctx, r11); return 1;
    case 20: *value = REG_FIELD(ctx, r12); return 1;
    case 21: *value = REG_FIELD(ctx, r13); return 1;
    case 22: *value = REG_FIELD(ctx, r14); return 1;
    case 23: *value = REG_FIELD(ctx, r15); return 1;
    default: return 0;
  }
}

/* As the sampled path extends: from size bytes, signed or not. */
static __always_inline __u64 extend(__u64 raw, __u8 size, int sign) {
  if (size >= 8) return raw;
  __u32 unused = 64 - 8 * (__u32)size;
  raw <<= unused;
  if (sign) return (__u64)((__s64)raw >> unused);
  return raw >> unused;
}

/* The argument's value (for a string: the pointer); 0 when it cannot be read. */
static __always_inline int read_value(const struct pt_regs *ctx, const struct usdt_bpf_arg *arg,
                                      __u64 bias, __u64 *value, const int faulting) {
  const int sign = arg->flags & USDT_BPF_ARG_SIGNED;
  __u64 v = 0;
  if (arg->kind == USDT_BPF_ARG_CONST) {
    v = (__u64)arg->constant;
    if (arg->flags & USDT_BPF_ARG_BIAS) v += bias; /* $sym of a position-independent file */
    *value = extend(v, arg->size, sign);
    return 1;
  }
  if (arg->kind == USDT_BPF_ARG_REG) {
    if (!register_value(ctx, arg->reg, &v)) return 0;
    *value = extend(v >> (arg->shift & 63), arg->size, sign);
    return 1;
  }
  if (arg->kind != USDT_BPF_ARG_MEM) return 0;
  __u64 address = (__u64)arg->constant;
  if (arg->reg != USDT_BPF_NO_REG) {
    if (!register_value(ctx, arg->reg, &v)) return 0;
    address += v;
  }
  if (arg->index_reg != USDT_BPF_NO_REG) {
    if (!register_value(ctx, arg->index_reg, &v)) return 0;
    address += v * arg->scale;
  }
  if (arg->flags & USDT_BPF_ARG_BIAS) address += bias;
  __u32 size = arg->size;
  if (size == 0 || size > 8) return 0;
  v = 0;
  const long err = faulting ? bpf_copy_from_user(&v, size, (const void *)address)
                            : bpf_probe_read_user(&v, size, (const void *)address);
  if (err != 0) return 0;
  *value = extend(v, (__u8)size, sign);
  return 1;
}

/* Appends the string at `pointer` at offset `at` of the scratch: its
 * length word, then its bytes; returns the offset after it. A NULL or
 * unreadable pointer leaves length 0 and sets *missing. The strings of one
 * record share the scratch's first half, less room for the length words
 * of the strings after this one: a string that does not fit is cut there,
 * and marked so. */
static __always_inline __u32 append_string(__u8 *area, __u32 at, __u64 pointer, int readable,
                                           int *missing, const int faulting) {
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
    got = faulting ? bpf_copy_from_user_str(area + at + 4, room, (const void *)pointer, 0)
                   : bpf_probe_read_user_str(area + at + 4, room, (const void *)pointer);
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

static __always_inline void count_lost(__u32 site_id, __u32 cpu) {
  __u32 slot = site_id * config.cpu_count + cpu;
  __u64 *counter = bpf_map_lookup_elem(&lost, &slot);
  if (counter) __sync_fetch_and_add(counter, 1);
}

/* Wake the reader only when the unread data crosses the mark: no wakeup
 * per record, and the reader's timer takes what stays below it. */
static __always_inline __u64 wakeup_flags(__u64 size) {
  const __u64 unread = bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA);
  return unread < config.wakeup_bytes && unread + size >= config.wakeup_bytes
             ? BPF_RB_FORCE_WAKEUP
             : BPF_RB_NO_WAKEUP;
}

static __always_inline void fill_head(struct usdt_bpf_record_head *head, __u32 site_id,
                                      __u32 cpu) {
  const __u64 pid_tgid = bpf_get_current_pid_tgid();
  head->time = bpf_ktime_get_ns();
  head->pid = (__u32)(pid_tgid >> 32);
  head->tid = (__u32)pid_tgid;
  head->site_id = site_id;
  head->cpu = (__u16)cpu;
}

/* A site of registers and constants: its record, of a size known here,
 * is reserved in the ring and filled in place. (A per-CPU scratch is not
 * safe: uprobe programs run with migration, not preemption, disabled, so
 * another task may run this program on the same CPU meanwhile.) */
static __always_inline int capture_registers(struct pt_regs *ctx,
                                             const struct usdt_bpf_site *site, __u32 site_id,
                                             const __u32 slots, const __u32 count) {
  const __u64 size = sizeof(struct usdt_bpf_record_head) + 8 * slots;
  const __u64 flags = wakeup_flags(size);
  const __u32 cpu = bpf_get_smp_processor_id();
  struct usdt_bpf_record_head *head = bpf_ringbuf_reserve(&records, size, 0);
  if (!head) {
    count_lost(site_id, cpu);
    return 0;
  }
  fill_head(head, site_id, cpu);
  __u64 *values = (__u64 *)(head + 1);
  const __u64 bias = ctx->rip - site->probe_address; /* for $sym of a moved file */
  __u16 missing = 0;
#pragma clang loop unroll(disable)
  for (__u32 i = 0; i < slots; ++i) {
    if (i >= count) break;
    __u64 v = 0;
    if (!read_value(ctx, &site->args[i], bias, &v, 0)) missing |= (__u16)(1u << i);
    values[i] = v;
  }
  head->missing = missing;
  bpf_ringbuf_submit(head, flags);
  return 0;
}

static __always_inline int capture(struct pt_regs *ctx, const struct usdt_bpf_site *site,
                                   __u32 site_id, __u32 cpu, struct scratch_area *area,
                                   const int faulting) {
  struct usdt_bpf_record_head *head = (struct usdt_bpf_record_head *)area->bytes;
  fill_head(head, site_id, cpu);

  __u32 count = site->arg_count;
  if (count > USDT_BPF_MAX_ARGS) count = USDT_BPF_MAX_ARGS;
  __u64 *values = (__u64 *)(area->bytes + sizeof(*head));
  __u32 at = sizeof(*head) + 8 * count;
  const __u64 bias = ctx->rip - site->probe_address;
  __u16 missing = 0;
  for (__u32 i = 0; i < USDT_BPF_MAX_ARGS; ++i) {
    if (i >= count) break;
    const struct usdt_bpf_arg *arg = &site->args[i];
    __u64 v = 0;
    int ok = read_value(ctx, arg, bias, &v, faulting);
    if (arg->flags & USDT_BPF_ARG_STRING) {
      int gone = 0;
      at = append_string(area->bytes, at, v, ok, &gone, faulting);
      if (gone) missing |= (__u16)(1u << i);
      v = 0;
    } else if (!ok) {
      missing |= (__u16)(1u << i);
    }
    values[i] = v;
  }
  head->missing = missing;

  __u64 size = (at + 7) & ~7u;
  if (size > USDT_BPF_SCRATCH_HALF) size = USDT_BPF_SCRATCH_HALF;
  size &= 2 * USDT_BPF_SCRATCH_HALF - 1; /* a bound the verifier sees */
  if (bpf_ringbuf_output(&records, area->bytes, size, wakeup_flags(size)) != 0) {
    count_lost(site_id, cpu);
  }
  return 0;
}

/* Whether the hit is to be recorded: the recording runs, and the hit is
 * not the recorder's own. */
static __always_inline int wanted(void) {
  return armed && (__u32)(bpf_get_current_pid_tgid() >> 32) != config.self_tgid;
}

SEC("uprobe")
int usdt_capture(struct pt_regs *ctx) {
  if (!wanted()) return 0;
  __u32 site_id = (__u32)bpf_get_attach_cookie(ctx);
  const struct usdt_bpf_site *site = bpf_map_lookup_elem(&plans, &site_id);
  if (!site) return 0;
  /* Three record sizes (the verifier checks each path once): up to 2, 6
   * and 12 arguments; the decoder reads as many as the site has. */
  const __u32 count = site->arg_count;
  if (count <= 2) return capture_registers(ctx, site, site_id, 2, count);
  if (count <= 6) return capture_registers(ctx, site, site_id, 6, count);
  return capture_registers(ctx, site, site_id, USDT_BPF_MAX_ARGS, count);
}

SEC("uprobe")
int usdt_capture_faulting(struct pt_regs *ctx) {
  if (!wanted()) return 0;
  __u32 site_id = (__u32)bpf_get_attach_cookie(ctx);
  const struct usdt_bpf_site *site = bpf_map_lookup_elem(&plans, &site_id);
  if (!site) return 0;
  struct scratch_area *area = bpf_task_storage_get(&task_scratch, bpf_get_current_task_btf(), 0,
                                                   BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!area) {
    count_lost(site_id, bpf_get_smp_processor_id());
    return 0;
  }
  return capture(ctx, site, site_id, bpf_get_smp_processor_id(), area, 1);
}
