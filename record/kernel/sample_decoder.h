// Turns the records of a perf ring buffer into trace records: samples into
// Events with exactly decoded arguments, PERF_RECORD_LOST into LostEvents,
// COMM/FORK/EXIT and executable MMAP2 (-g) into ProcessEvents. Source of truth for the layouts:
// include/uapi/linux/perf_event.h (enum perf_event_type).
//
// Every event the recorder opens uses sample_type [IDENTIFIER |] TID | TIME |
// CPU (+ REGS_USER, STACK_USER per site; PERIOD and RAW for kernel tracepoints;
// RAW for tracefs uprobe events; CALLCHAIN with -g fp) and sample_id_all, so a sample starts
// with its event identifier and every other record ends with the trailer
// { pid, tid, time, cpu, res[, identifier] }. The identifier maps to a probe
// site through the ids registered with add_event(); without identifiers
// there is exactly one site and every sample is its.
//
// An argument is present only when its value is in the sample: a constant, a
// sampled register (shifted, truncated to its size, then sign- or
// zero-extended), or memory that lies wholly inside the sampled stack dump.
// Anything else is missing, never a guess. Records that are too short or
// carry an unknown id are skipped and counted.
#pragma once

#include <linux/perf_event.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/arg_spec.h"
#include "formats/byte_cursor.h"
#include "formats/trace_types.h"
#include "record/kernel/packed_event.h"

namespace usdt::record {

// The registers of one sample, looked up by perf register number.
class SampledRegs {
 public:
  SampledRegs() { slot_.fill(-1); }
  // Registers in a sample come in ascending bit order of the mask.
  void set_layout(uint64_t mask);
  void set_values(const uint8_t* values, bool present) {
    values_ = values;
    present_ = present;
  }
  bool present() const { return present_; }
  uint64_t mask() const { return mask_; }
  // Inline: called for every argument of every sample.
  std::optional<uint64_t> get(int16_t reg) const {
    if (!present_ || reg < 0 || reg >= 64 || slot_[reg] < 0) return std::nullopt;
    uint64_t v;
    std::memcpy(&v, values_ + 8 * slot_[reg], 8);
    return v;
  }

 private:
  std::array<int8_t, 64> slot_;
  uint64_t mask_ = 0;
  const uint8_t* values_ = nullptr;  // unaligned u64s inside the record
  bool present_ = false;             // false when the abi was NONE (no user regs)
};

// The user stack dump of one sample: bytes starting at the sampled %rsp.
struct StackDump {
  const uint8_t* data = nullptr;
  uint64_t size = 0;  // valid bytes (dyn_size)
};

// raw's low size bytes, sign- or zero-extended to 64 bits.
uint64_t extend_arg(uint64_t raw, unsigned size, bool sign);

// Decodes one argument; nullopt when the value is not in the sample.
std::optional<uint64_t> decode_arg(const ArgSpec& spec, ArgSource source, const SampledRegs& regs,
                                   const StackDump& stack, int16_t sp_reg);

// Where a kernel-read argument lies in a tracefs event's raw record
// (offsets from the start of the raw data, as events/GROUP/NAME/format says;
// record/attach/fetch_args.h explains the fields).
struct RawArg {
  int32_t value = -1;   // the value, or a string's __data_loc
  uint8_t size = 0;     // of the value field
  int32_t first = -1;   // __data_loc of the first-byte detector; -1 = none
  int32_t last = -1;    // __data_loc of the last-byte detector; -1 = none
  bool string = false;  // text: a __data_loc string, or a fixed char array (fixed)
  // Tracepoint fields (record/attach/tracepoint_format.h):
  uint32_t fixed = 0;    // a fixed array of this many bytes at value (not a __data_loc)
  bool hex = false;      // bytes recorded as lower-case hex text (FORMAT.md 3.4.1)
  bool rel_loc = false;  // __rel_loc: the offset counts from the end of the u32
  bool is_string_arg() const { return string || hex; }
};

// -g fp at a site where the kernel's frame-pointer walk does not name the
// caller as it is (record/stacks/fp_caller.h decides, from the site's CFI):
// how the sample mends the callchain. Offsets are in the stack dump, from
// the sampled %rsp; -1 = not used.
struct CallerRepair {
  // The kernel put the word at (%rsp) after the ip, taking the probe for a
  // function's entry (record/stacks/site_frame.h); it is no return address
  // here: taken out when it is that word.
  bool drop_kernel_entry = false;
  // The caller's return address, put after the ip.
  int32_t return_address_at = -1;
  // Where the caller's %rbp was saved: the kernel walked from the caller's
  // frame only if the sampled %rbp still equals it (or the frame turns out
  // set up after all: %rbp points at that slot).
  int32_t rbp_saved_at = -1;
  bool needed() const { return drop_kernel_entry || return_address_at >= 0; }
};

// How the events of one probe site are decoded.
struct SiteDecoding {
  uint32_t site_id = 0;
  uint64_t regs_mask = 0;
  uint32_t stack_bytes = 0;
  std::vector<ArgSpec> args;
  std::vector<ArgSource> sources;
  Arch arch = Arch::x86_64;
  bool raw = false;              // samples carry PERF_SAMPLE_RAW (a tracefs event)
  bool period = false;           // samples carry PERF_SAMPLE_PERIOD (a kernel tracepoint)
  std::vector<RawArg> raw_args;  // per argument (kernel_read ones)
  uint32_t string_bytes = 256;   // --string-bytes: longer strings are cut
  bool callchain = false;        // samples carry PERF_SAMPLE_CALLCHAIN (-g fp)
  CallerRepair caller_repair;    // -g fp: the site's frame misleads the kernel's walk
};

// The user callchain of a sample (PERF_SAMPLE_CALLCHAIN), as the kernel wrote
// it: context markers (PERF_CONTEXT_USER, ...) mixed with addresses.
struct Callchain {
  const uint8_t* entries = nullptr;  // nr unaligned u64s inside the record
  uint64_t nr = 0;
  uint64_t at(size_t i) const {
    uint64_t v;
    std::memcpy(&v, entries + 8 * i, 8);
    return v;
  }
};

// What one event's capture holds for its call stack (record/stacks/): the
// user registers (present() false without), the stack from %rsp (with -g
// dwarf larger than the arguments need), the user callchain (nr 0
// without) and the site's CallerRepair. A perf sample (SampleDecoder) and
// a BPF record (BpfRecordDecoder) give the same.
struct StackInputs {
  const SampledRegs* regs = nullptr;
  StackDump stack;
  Callchain callchain;
  const CallerRepair* repair = nullptr;
};

// Decodes a kernel-read argument from a raw record; nullopt when the read
// faulted (or the pointer was NULL) or a field lies outside the record.
// Strings go to *string; hex text is built in *hex_text, which *string then
// points into.
std::optional<uint64_t> decode_raw_arg(const ArgSpec& spec, const RawArg& raw, const uint8_t* data,
                                       size_t size, uint32_t string_bytes,
                                       format::StringArg* string, std::string* hex_text = nullptr);

class SampleDecoder {
 public:
  enum class Kind { none, event, process, lost };

  // sites are indexed by site_id (dense). identifier: whether the events
  // carry PERF_SAMPLE_IDENTIFIER (required with more than one site).
  SampleDecoder(std::vector<SiteDecoding> sites, bool identifier);
  // A site attached during the recording; its site_id must be the next one.
  // Only with identifiers: the events of several sites must be told apart.
  void add_site(SiteDecoding site);

  // Registers a kernel event id (PERF_EVENT_IOC_ID) of a site, or of a
  // tracking event (site_id == format::kNoSite).
  void add_event(uint64_t kernel_id, uint32_t site_id);

  // A record's time: a sample's own, or the one in a side-band record's
  // sample_id trailer (comm, fork, exit, mmap, lost); nullopt for a record
  // too short to hold it or of a kind without one.
  std::optional<uint64_t> record_time(const perf_event_header* record) const;

  // Decodes one record. The result is in event()/process()/lost() until the
  // next call; Kind::none for records that are skipped (counted below).
  Kind decode(const perf_event_header* record);

  // The usual sample, packed at out (room for kPackedMaxWords, layout of
  // packed_event.h) without decode()'s format::Event: a sample with user
  // registers of a registers-only site that is the last sample's site (or
  // the only one). Returns the words written; 0 for any other record, which
  // decode() then takes as usual (and which leaves the state as it was).
  // Valid for event() only: sample_regs() and the others are not set.
  inline size_t pack_usual(const perf_event_header* record, uint64_t* out);

  const format::Event& event() const { return event_; }
  // What the last event's sample held for its call stack (record/stacks/):
  // the user registers (present() false without), the stack dump (its whole
  // dyn_size, which -g dwarf makes larger than the arguments need), the
  // callchain (nr 0 without). Valid until the next decode().
  const SampledRegs& sample_regs() const { return *sample_regs_; }
  const StackDump& sample_stack() const { return sample_stack_; }
  const Callchain& sample_callchain() const { return sample_callchain_; }
  // The site's CallerRepair (all unused for a sample without a callchain).
  const CallerRepair& sample_caller_repair() const { return *sample_caller_repair_; }
  StackInputs stack_inputs() const {
    return StackInputs{sample_regs_, sample_stack_, sample_callchain_, sample_caller_repair_};
  }
  const format::ProcessEvent& process() const { return process_; }
  const format::LostEvent& lost() const { return lost_; }

  // Replaces a site's raw layout once its tracefs event exists.
  void set_raw_layout(uint32_t site_id, std::vector<RawArg> raw_args);

  // Per site and argument: samples in which a stack argument lay outside
  // the dump (below %rsp, i.e. in the red zone, or beyond its end).
  const std::vector<std::vector<uint64_t>>& stack_misses() const { return stack_misses_; }

  uint64_t malformed() const { return malformed_; }
  uint64_t unknown_ids() const { return unknown_ids_; }
  uint64_t ignored() const { return ignored_; }

 private:
  // The usual site: every argument in a sampled register, nothing else in
  // its samples but pid, tid, time, cpu and the registers. Its samples have
  // one layout, and decode_registers_only() reads them at fixed offsets.
  // An argument read from a sampled register: extend(value >> shift, size,
  // sign) without branches, as (value >> shift) & mask, then moved up and
  // back down by sign_shift (arithmetic: 64 - 8 * size when signed, else 0).
  struct RegisterArg {
    uint32_t offset;  // of the register's value in the sample, after the identifier
    uint8_t shift;
    uint8_t sign_shift;
    uint64_t mask;
  };
  struct Site {
    SiteDecoding decoding;
    SampledRegs regs;
    size_t regs_bytes = 0;  // 8 per register of regs_mask, counted once
    int16_t sp_reg = x86_reg::sp;
    bool registers_only = false;
    std::array<RegisterArg, format::kMaxArgs> register_args{};
    uint8_t arg_count = 0;  // decoding.args.size(), read per sample
  };
  Site* site_of(uint64_t kernel_id);
  // The raw data of a sample (PERF_SAMPLE_RAW: the tracefs event's fetch-args).
  struct RawData {
    const uint8_t* data = nullptr;
    uint32_t size = 0;
  };
  Kind decode_sample(const uint8_t* p, size_t size);
  // The fields after the id, up to the stack dump: false when they do not fit.
  bool read_sample_fields(format::ByteCursor& c, Site& site, RawData* raw);
  void decode_args(Site& site, const RawData& raw);
  Kind decode_registers_only(Site& site, const uint8_t* p, size_t size);
  Kind decode_lost(const uint8_t* p, size_t size, bool samples_only);
  Kind decode_comm(const uint8_t* p, size_t size, uint16_t misc);
  Kind decode_task(const uint8_t* p, size_t size, bool is_exit);
  Kind decode_mmap2(const uint8_t* p, size_t size, uint16_t misc);
  // PERF_RECORD_NAMESPACES (a task's namespaces, at its fork): a process
  // record of kind pid_namespace with the PID namespace's inode and no
  // numbers, which the drainer keeps for the task (never written as is).
  Kind decode_namespaces(const uint8_t* p, size_t size);
  // Inline: called for every sample; the table grows once per CPU.
  void note_time(uint32_t cpu, uint64_t time) {
    if (cpu < last_time_by_cpu_.size()) {
      last_time_by_cpu_[cpu] = time;
    } else {
      note_new_cpu_time(cpu, time);
    }
  }
  void note_new_cpu_time(uint32_t cpu, uint64_t time);

  std::vector<Site> sites_;
  bool identifier_ = true;
  size_t trailer_bytes_ = 32;
  std::unordered_map<uint64_t, uint32_t> site_by_id_;
  uint64_t last_id_ = ~uint64_t{0};
  uint32_t last_site_ = 0;
  std::vector<uint64_t> last_time_by_cpu_;

  format::Event event_;
  const SampledRegs* sample_regs_ = &no_regs_;
  SampledRegs no_regs_;
  StackDump sample_stack_;
  Callchain sample_callchain_;
  const CallerRepair* sample_caller_repair_ = &no_repair_;
  CallerRepair no_repair_;
  // The string arguments of event_: their bytes point into the record.
  std::array<format::StringArg, format::kMaxArgs> strings_;
  std::array<std::string, format::kMaxArgs> hex_texts_;  // hex arguments' text
  size_t cleared_from_ = format::kMaxArgs;               // event_.args[cleared_from_..] are zero
  format::ProcessEvent process_;
  format::LostEvent lost_;
  std::vector<std::vector<uint64_t>> stack_misses_;
  uint64_t malformed_ = 0;
  uint64_t unknown_ids_ = 0;
  uint64_t ignored_ = 0;
};

// Inline: the drain loop calls it for every record. The same reads as
// decode_registers_only(), which the unit tests hold it to.
size_t SampleDecoder::pack_usual(const perf_event_header* record, uint64_t* out) {
  if (record->type != PERF_RECORD_SAMPLE) return 0;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(record) + sizeof(perf_event_header);
  size_t size = record->size - sizeof(perf_event_header);
  const Site* site;
  if (identifier_) {
    uint64_t id;
    if (size < 8) return 0;
    std::memcpy(&id, p, 8);
    if (id != last_id_ || last_site_ >= sites_.size()) return 0;
    p += 8;
    size -= 8;
    site = &sites_[last_site_];
  } else if (sites_.size() == 1) {
    site = &sites_[0];
  } else {
    return 0;
  }
  constexpr size_t kAbiAt = 4 + 4 + 8 + 4 + 4;
  if (!site->registers_only || size < kAbiAt + 8 + site->regs_bytes) return 0;
  uint64_t abi;
  std::memcpy(&abi, p + kAbiAt, 8);
  if (abi == PERF_SAMPLE_REGS_ABI_NONE) return 0;  // no user registers: all missing
  uint32_t pid, tid, cpu;
  uint64_t time;
  std::memcpy(&pid, p, 4);
  std::memcpy(&tid, p + 4, 4);
  std::memcpy(&time, p + 8, 8);
  std::memcpy(&cpu, p + 16, 4);
  note_time(cpu, time);
  const size_t n = site->arg_count;
  pack_header(out, time, pid, tid, cpu, site->decoding.site_id, packed_shape(n, 0, 0, 0, false));
  uint64_t* args = out + kPackedHeaderWords;
  for (size_t i = 0; i < n; ++i) {
    const RegisterArg& a = site->register_args[i];
    uint64_t v;
    std::memcpy(&v, p + a.offset, 8);
    v = ((v >> a.shift) & a.mask) << a.sign_shift;
    args[i] = static_cast<uint64_t>(static_cast<int64_t>(v) >> a.sign_shift);
  }
  return kPackedHeaderWords + n;
}

}  // namespace usdt::record
