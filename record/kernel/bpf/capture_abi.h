/* What the capture program (usdt_capture.bpf.c) and the recorder share: the
 * per-site plan it reads the arguments by, and the records it writes into
 * the BPF ring buffer. Plain C with fixed-size fields, included by the BPF
 * program (clang -target bpf) and by the recorder (record/kernel/). The
 * layout is documented in docs/internals.md, "The BPF capture path".
 *
 * Model: libbpf's USDT support (usdt.bpf.h, src/usdt.c), which keeps one
 * spec per site in an array map and finds it through the BPF cookie of the
 * attachment. Ours differs where the recorder needs more than a value:
 *   - base + index * scale memory operands, symbols (with the file's load
 *     bias from the probe's own address) and strings are read;
 *   - a read that faults marks the argument missing (libbpf returns an
 *     error to the caller's program; we record that it is absent);
 *   - the records go to a ring buffer in one compact layout for every site,
 *     decoded by the recorder with the site's plan. */
#ifndef USDT_RECORD_KERNEL_BPF_CAPTURE_ABI_H
#define USDT_RECORD_KERNEL_BPF_CAPTURE_ABI_H

#include <linux/types.h>

#define USDT_BPF_MAX_ARGS 12

/* Where an argument's value is. */
enum usdt_bpf_arg_kind {
  USDT_BPF_ARG_MISSING = 0, /* never recorded: the plan says why */
  USDT_BPF_ARG_CONST = 1,   /* value = constant */
  USDT_BPF_ARG_REG = 2,     /* value = register >> shift */
  USDT_BPF_ARG_MEM = 3,     /* value = the bytes at [reg + index * scale + constant (+ bias)] */
};

/* usdt_bpf_arg.flags */
#define USDT_BPF_ARG_SIGNED 1u   /* sign-extend from size, else zero-extend */
#define USDT_BPF_ARG_BIAS 2u     /* MEM: add the file's load bias (a symbol of a PIE) */
#define USDT_BPF_ARG_STRING 4u   /* the value is a char *: record the string it points to */

/* Register numbers are perf's (PERF_REG_X86_*); USDT_BPF_NO_REG for none. */
#define USDT_BPF_NO_REG 255

struct usdt_bpf_arg {
  __s64 constant; /* CONST: the value; MEM: the displacement (a symbol's address included) */
  __u8 kind;      /* enum usdt_bpf_arg_kind */
  __u8 size;      /* 1, 2, 4 or 8 bytes */
  __u8 flags;
  __u8 shift;     /* REG: 8 for %ah %bh %ch %dh */
  __u8 reg;       /* REG, MEM: base register or USDT_BPF_NO_REG */
  __u8 index_reg; /* MEM: index register or USDT_BPF_NO_REG */
  __u8 scale;     /* MEM: 1, 2, 4 or 8 */
  __u8 pad;
};

/* One probe site, at index site_id of the plans map (the attachment's BPF
 * cookie is the site id). */
struct usdt_bpf_site {
  /* The link-time address of the probed instruction: the load bias of the
   * file in the process that hit it is the trapped ip minus this. */
  __u64 probe_address;
  __u8 arg_count;
  __u8 has_strings;
  /* -g fp: the bytes of the stack from %rsp the site's caller repair reads
   * (record/stacks/fp_caller.h), at most USDT_BPF_FP_WINDOW_MAX; 0: none. */
  __u16 stack_window;
  __u8 pad[4];
  struct usdt_bpf_arg args[USDT_BPF_MAX_ARGS];
};

/* A record in the ring buffer, 8-byte aligned:
 *   struct usdt_bpf_record_head;
 *   __u64 values[arg_count];       the site's arguments (0 for strings and
 *                                  missing ones);
 *   then, for each string argument in order of the arguments, present or
 *   not: __u32 (length | USDT_BPF_STRING_CUT when the string was longer
 *   than the limit), then length bytes (no NUL); a missing string has
 *   length 0 and its missing bit set;
 *   then, with call stacks (config.call_graph), at the next multiple of 8:
 *   struct usdt_bpf_stack_head;
 *   __u64 regs[regs];              in the order of perf's register numbers:
 *                                  fp %rbp %rsp; dwarf the 17 that DWARF
 *                                  unwinding uses (ax..di, bp, sp, ip, r8..r15);
 *   __u8 stack[stack_room];        the user stack from %rsp, stack_size of it read;
 *   __u64 frames[frames];          fp: the user callchain, the ip first.
 * arg_count comes from the site's plan, which the recorder holds too. A
 * record may be longer than its layout (room reserved for more arguments). */
struct usdt_bpf_record_head {
  __u64 time;    /* bpf_ktime_get_ns(): CLOCK_MONOTONIC, as the perf events' */
  __u32 pid;     /* tgid */
  __u32 tid;
  __u32 site_id;
  __u16 cpu;
  __u16 missing; /* bit i: argument i could not be read (a fault, a NULL string) */
};

#define USDT_BPF_STRING_CUT 0x80000000u

struct usdt_bpf_stack_head {
  __u32 frames;     /* fp: callchain entries after the stack copy */
  __u32 stack_size; /* bytes of the stack copy read (up to the first page that could not be) */
  __u32 stack_room; /* bytes of the stack copy in the record, a multiple of 8 */
  __u32 regs;       /* registers that follow */
};

/* usdt_bpf_config.call_graph: what the records carry for call stacks. */
#define USDT_BPF_STACKS_NONE 0
#define USDT_BPF_STACKS_FP 1    /* the callchain, %rbp, %rsp, the site's stack window */
#define USDT_BPF_STACKS_DWARF 2 /* the unwinding registers and config.stack_bytes of stack */

#define USDT_BPF_FP_REGS 2
#define USDT_BPF_DWARF_REGS 17
/* The largest fp stack window and callchain (entries) a record holds. */
#define USDT_BPF_FP_WINDOW_MAX 4096
#define USDT_BPF_FP_DEPTH_MAX 1024
/* The largest dwarf stack copy (perf's limit for a sample's stack dump). */
#define USDT_BPF_DWARF_BYTES_MAX 65528

/* Configuration the recorder sets before loading (the program's .rodata). */
struct usdt_bpf_config {
  __u32 string_bytes;    /* --string-bytes: longer strings are cut and marked */
  __u32 wakeup_bytes;    /* wake the reader when the unread data crosses this */
  __u32 cpu_count;       /* the lost counters' row length */
  /* The recorder's own process, as the recorder sees it (getpid()): the
   * program of a tracefs site is attached to an event of the recorder
   * (record/session/session_capture.cpp), which arms the probe in the
   * recorder too when it maps the file (libc); its own hits are not the
   * traced processes'. */
  __u32 self_tgid;
  __u32 call_graph;  /* USDT_BPF_STACKS_* */
  __u32 stack_depth; /* fp: callchain entries, at most USDT_BPF_FP_DEPTH_MAX */
  __u32 stack_bytes; /* dwarf: stack bytes copied, a multiple of 8 */
  __u32 pad;
  /* Non-zero when the recorder runs in a PID namespace other than the
   * initial one: the device and inode of that namespace (its
   * /proc/self/ns/pid), whose numbers the records carry, as perf's do
   * (bpf_get_ns_current_pid_tgid): 0 for a task outside it. */
  __u64 pidns_dev;
  __u64 pidns_ino;
};

/* The scratch a record is built in before it is copied into the ring (a
 * reservation's size must be known when the program is verified): twice
 * the largest record, so that any write at an offset below half of it,
 * masked, stays inside. A record's strings share that half: past 16 KiB
 * they are cut and marked. */
#define USDT_BPF_SCRATCH_HALF 16384u

#endif
