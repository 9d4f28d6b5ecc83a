// SPDX-License-Identifier: GPL-2.0
/* What the two capture programs of usdt-record's BPF path share
 * (docs/internals.md, "The BPF capture path"): the configuration, the
 * maps, reading an argument by its plan (capture_abi.h), the record's head,
 * the lost counters and the wakeups; capture_record.bpf.h adds a record's
 * call stack part and its way into the ring.
 *
 * usdt_capture.bpf.c holds the program of the sites that read registers
 * and constants only, usdt_capture_faulting.bpf.c the sleepable one of the
 * sites that read memory or strings. They are two objects: the faulting
 * one calls a kfunc, which makes libbpf read the kernel's whole BTF at
 * load, and is verified far longer; a recording that needs only the other
 * pays for neither. The recorder creates the maps with the first object
 * and hands them to the second (bpf_map__reuse_fd), so both write the same
 * ring and read the same plans and scratch; each has its own copy of the
 * configuration and of the armed flag. */
#ifndef USDT_RECORD_KERNEL_BPF_CAPTURE_COMMON_BPF_H
#define USDT_RECORD_KERNEL_BPF_CAPTURE_COMMON_BPF_H

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
  /* -g dwarf: where the task's stack ended (the first byte that could not
   * be read above %rsp) at an earlier hit; 0: not known. */
  __u64 stack_end;
};

/* A record built before it goes into the ring (strings, call stacks), one
 * area per task that hit a probe, made at its first hit. Not per CPU: a
 * uprobe program runs with migration, not preemption, disabled, and a
 * sleepable one may sleep in a fault, so another task may run the program
 * on the same CPU meanwhile (a first version with a per-CPU scratch wrote
 * wrong arguments from two threads). */
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct scratch_area);
} task_scratch SEC(".maps");

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

/* v &= mask, done on v's own register: the verifier then knows v's bound.
 * (clang drops a plain & it can prove changes nothing, and may check a
 * bound on a copy of the register that is then not the one used.) */
#define BOUND(v, mask)                                                          \
  do {                                                                          \
    __u64 bounded_ = (v);                                                       \
    asm volatile("%[b] &= %[m]" : [b] "+r"(bounded_) : [m] "i"(mask));          \
    (v) = bounded_;                                                             \
  } while (0)

/* v = min(v, limit), in v's own register, where limit holds a value the
 * verifier knows: it then knows v's bound (as BOUND). */
#define CLAMP(v, limit)                                                         \
  do {                                                                          \
    __u64 clamped_ = (v);                                                       \
    asm volatile("if %[c] <= %[l] goto +1; %[c] = %[l]"                         \
                 : [c] "+r"(clamped_)                                           \
                 : [l] "r"((__u64)(limit)));                                    \
    (v) = clamped_;                                                             \
  } while (0)

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

/* The address of a memory operand: base + index * scale + displacement,
 * plus the load bias for a symbol of a moved file; 0 when a register is
 * not in pt_regs. */
static __always_inline int memory_address(const struct pt_regs *ctx, const struct usdt_bpf_arg *arg,
                                          __u64 bias, __u64 *address) {
  __u64 v = 0;
  __u64 at = (__u64)arg->constant;
  if (arg->reg != USDT_BPF_NO_REG) {
    if (!register_value(ctx, arg->reg, &v)) return 0;
    at += v;
  }
  if (arg->index_reg != USDT_BPF_NO_REG) {
    if (!register_value(ctx, arg->index_reg, &v)) return 0;
    at += v * arg->scale;
  }
  if (arg->flags & USDT_BPF_ARG_BIAS) at += bias;
  *address = at;
  return 1;
}

/* A constant or register argument's value; 0 for any other kind. */
static __always_inline int direct_value(const struct pt_regs *ctx, const struct usdt_bpf_arg *arg,
                                        __u64 bias, __u64 *value) {
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
  return 0;
}

struct hit_ids {
  __u32 pid; /* tgid */
  __u32 tid;
};

/* Whether the hit is to be recorded: the recording runs, and the hit is
 * not the recorder's own. The ids are the numbers of the recorder's PID
 * namespace, as perf gives them: 0 for a task outside it (-a), which the
 * recorder cannot name (perf's samples say 0 too). */
static __always_inline int wanted(struct hit_ids *ids) {
  if (!armed) return 0;
  if (config.pidns_ino != 0) {
    struct bpf_pidns_info ns = {};
    if (bpf_get_ns_current_pid_tgid(config.pidns_dev, config.pidns_ino, &ns, sizeof ns) != 0) {
      ns.tgid = 0;
      ns.pid = 0;
    }
    ids->pid = ns.tgid;
    ids->tid = ns.pid;
  } else {
    const __u64 pid_tgid = bpf_get_current_pid_tgid();
    ids->pid = (__u32)(pid_tgid >> 32);
    ids->tid = (__u32)pid_tgid;
  }
  return ids->pid != config.self_tgid;
}

static __always_inline void fill_head(struct usdt_bpf_record_head *head, const struct hit_ids *ids,
                                      __u32 site_id, __u32 cpu) {
  head->time = bpf_ktime_get_ns();
  head->pid = ids->pid;
  head->tid = ids->tid;
  head->site_id = site_id;
  head->cpu = (__u16)cpu;
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

#endif
