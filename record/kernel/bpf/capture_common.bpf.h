// SPDX-License-Identifier: GPL-2.0
/* What the two capture programs of usdt-record's BPF path share
 * (docs/internals.md, "The BPF capture path"): the configuration, the
 * maps, reading an argument by its plan (capture_abi.h), the record's head,
 * the call stack part of a record, the lost counters and the wakeups. */
#ifndef USDT_RECORD_KERNEL_BPF_CAPTURE_COMMON_BPF_H
#define USDT_RECORD_KERNEL_BPF_CAPTURE_COMMON_BPF_H

#include <bpf/bpf_helpers.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>

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
#define REG_FIELD(ctx, field)                                                             \
  ({                                                                                      \
    __u64 loaded_;                                                                        \
    asm volatile("%[out] = *(u64 *)(%[base] + %[at])"                                     \
                 : [out] "=r"(loaded_)                                                    \
                 : [base] "r"(ctx), [at] "i"(__builtin_offsetof(struct pt_regs, field))); \
    loaded_;                                                                              \
  })

/* v &= mask, done on v's own register: the verifier then knows v's bound.
 * (clang drops a plain & it can prove changes nothing, and may check a
 * bound on a copy of the register that is then not the one used.) */
#define BOUND(v, mask)                                                 \
  do {                                                                 \
    __u64 bounded_ = (v);                                              \
    asm volatile("%[b] &= %[m]" : [b] "+r"(bounded_) : [m] "i"(mask)); \
    (v) = bounded_;                                                    \
  } while (0)

/* Register `reg` (perf's x86 numbering) of the trapped task; 0 when no
 * such register is kept in pt_regs. */
static __always_inline int register_value(const struct pt_regs* ctx, __u8 reg, __u64* value) {
  switch (reg) {
    case 0:
      *value = REG_FIELD(ctx, rax);
      return 1;
    case 1:
      *value = REG_FIELD(ctx, rbx);
      return 1;
    case 2:
      *value = REG_FIELD(ctx, rcx);
      return 1;
    case 3:
      *value = REG_FIELD(ctx, rdx);
      return 1;
    case 4:
      *value = REG_FIELD(ctx, rsi);
      return 1;
    case 5:
      *value = REG_FIELD(ctx, rdi);
      return 1;
    case 6:
      *value = REG_FIELD(ctx, rbp);
      return 1;
    case 7:
      *value = REG_FIELD(ctx, rsp);
      return 1;
    case 8:
      *value = REG_FIELD(ctx, rip);
      return 1;
    case 16:
      *value = REG_FIELD(ctx, r8);
      return 1;
    case 17:
      *value = REG_FIELD(ctx, r9);
      return 1;
    case 18:
      *value = REG_FIELD(ctx, r10);
      return 1;
    case 19:
      *value = REG_FIELD(ctx, r11);
      return 1;
    case 20:
      *value = REG_FIELD(ctx, r12);
      return 1;
    case 21:
      *value = REG_FIELD(ctx, r13);
      return 1;
    case 22:
      *value = REG_FIELD(ctx, r14);
      return 1;
    case 23:
      *value = REG_FIELD(ctx, r15);
      return 1;
    default:
      return 0;
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
static __always_inline int memory_address(const struct pt_regs* ctx, const struct usdt_bpf_arg* arg,
                                          __u64 bias, __u64* address) {
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
static __always_inline int direct_value(const struct pt_regs* ctx, const struct usdt_bpf_arg* arg,
                                        __u64 bias, __u64* value) {
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
static __always_inline int wanted(struct hit_ids* ids) {
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

static __always_inline void fill_head(struct usdt_bpf_record_head* head, const struct hit_ids* ids,
                                      __u32 site_id, __u32 cpu) {
  head->time = bpf_ktime_get_ns();
  head->pid = ids->pid;
  head->tid = ids->tid;
  head->site_id = site_id;
  head->cpu = (__u16)cpu;
}

static __always_inline void count_lost(__u32 site_id, __u32 cpu) {
  __u32 slot = site_id * config.cpu_count + cpu;
  __u64* counter = bpf_map_lookup_elem(&lost, &slot);
  if (counter) __sync_fetch_and_add(counter, 1);
}

/* Wake the reader only when the unread data crosses the mark: no wakeup
 * per record, and the reader's timer takes what stays below it. */
static __always_inline __u64 wakeup_flags(__u64 size) {
  const __u64 unread = bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA);
  return unread < config.wakeup_bytes && unread + size >= config.wakeup_bytes ? BPF_RB_FORCE_WAKEUP
                                                                              : BPF_RB_NO_WAKEUP;
}

/* v = min(v, limit), in v's own register, where limit holds a value the
 * verifier knows: it then knows v's bound (see BOUND). */
#define CLAMP(v, limit)                                 \
  do {                                                  \
    __u64 clamped_ = (v);                               \
    asm volatile("if %[c] <= %[l] goto +1; %[c] = %[l]" \
                 : [c] "+r"(clamped_)                   \
                 : [l] "r"((__u64)(limit)));            \
    (v) = clamped_;                                     \
  } while (0)

/* Copies up to room bytes of the user stack from sp to dst, as the kernel
 * copies a perf sample's stack dump: up to the first page that cannot be
 * read (the top of the stack's mapping; no fault is taken). Returns the
 * bytes read. room: dst's size, a value of the configuration.
 *
 * A read that runs past the top of the stack fails whole, and a failed
 * read (a fault the kernel then fixes up) is expensive, so where the
 * task's stack ended at an earlier hit is kept (*stack_end) and the copy
 * stops there: one read per hit, which fails only when the task runs on
 * another stack (a signal stack, a coroutine's), and is then redone up to
 * the first page that cannot be read. */
static __always_inline __u32 copy_user_stack(__u8* dst, const __u32 room, __u64 sp,
                                             __u64* stack_end) {
  __u64 want = room;
  if (*stack_end > sp) want = *stack_end - sp;
  CLAMP(want, room);
  if (bpf_probe_read_user(dst, want, (const void*)sp) == 0) return want;
  /* The pages after sp's own, one byte of each, up to the first that fails. */
  __u64 readable = 4096 - (sp & 4095);
  for (int page = 0; page < USDT_BPF_DWARF_BYTES_MAX / 4096 + 1; ++page) {
    if (readable >= room) break;
    __u8 probe;
    if (bpf_probe_read_user(&probe, 1, (const void*)(sp + readable)) != 0) break;
    readable += 4096;
  }
  CLAMP(readable, room);
  if (bpf_probe_read_user(dst, readable, (const void*)sp) != 0) return 0;
  *stack_end = readable < room ? sp + readable : 0;
  return readable;
}

/* -g fp: the stack part at `part` of a record built in a scratch area
 * (room for USDT_BPF_SCRATCH_HALF bytes from there): %rbp, %rsp, the
 * site's window of the stack for the caller repair, then the kernel's
 * frame-pointer callchain (bpf_get_stack, as perf's PERF_SAMPLE_CALLCHAIN
 * walks it). Returns its size. */
static __always_inline __u32 fill_fp_stack(struct pt_regs* ctx, const struct usdt_bpf_site* site,
                                           __u8* part) {
  struct usdt_bpf_stack_head* head = (struct usdt_bpf_stack_head*)part;
  __u64* regs = (__u64*)(head + 1);
  const __u64 sp = REG_FIELD(ctx, rsp);
  regs[0] = REG_FIELD(ctx, rbp);
  regs[1] = sp;
  __u32 room = ((__u32)site->stack_window + 7) & ~7u;
  if (room > USDT_BPF_FP_WINDOW_MAX) room = USDT_BPF_FP_WINDOW_MAX;
  __u8* window = (__u8*)(regs + USDT_BPF_FP_REGS);
  __u32 got = 0;
  if (room != 0 && bpf_probe_read_user(window, room, (const void*)sp) == 0) {
    got = room;
  } else if (room != 0) {
    /* The window crosses into a page that cannot be read: up to it. */
    __u32 first = 4096 - (__u32)(sp & 4095);
    if (first < room && bpf_probe_read_user(window, first, (const void*)sp) == 0) got = first;
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
static __always_inline void fill_dwarf_stack(struct pt_regs* ctx, __u8* part, __u64* stack_end) {
  struct usdt_bpf_stack_head* head = (struct usdt_bpf_stack_head*)part;
  __u64* regs = (__u64*)(head + 1);
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
  head->stack_size = copy_user_stack((__u8*)(regs + USDT_BPF_DWARF_REGS), room, regs[7], stack_end);
}

/* Hands a record built in the scratch (its first `at` bytes) to the ring,
 * with its call stack part when the recording takes stacks. */
static __always_inline int output_record(struct pt_regs* ctx, const struct usdt_bpf_site* site,
                                         __u32 site_id, __u32 cpu, struct scratch_area* area,
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
    __u8* part = bpf_dynptr_data(&record, at, tail);
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
static __always_inline struct scratch_area* task_area(__u32 site_id, __u32 cpu) {
  struct scratch_area* area = bpf_task_storage_get(&task_scratch, bpf_get_current_task_btf(), 0,
                                                   BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!area) count_lost(site_id, cpu);
  return area;
}

#endif
