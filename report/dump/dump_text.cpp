// dump's text format: one line per event, "comm pid/tid [cpu] seconds:
// provider:name args". Kept apart from jsonl/csv so that it can keep whole
// line prefixes per thread: "host comm pid/tid [" is built once per thread
// (and again after a process record), not per event.
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "report/dump/dump_command.h"
#include "report/dump/dump_put.h"
#include "report/output/arg_format.h"
#include "report/output/stack_text.h"
#include "report/output/string_text.h"

namespace usdt::report {

namespace {

// The tables every text consumer formats with, built once per dump.
struct TextTables {
  // "NNN] " per cpu below 1000 as 8-byte words: the [%3u] field.
  struct CpuText {
    char text[8];
  };
  std::vector<CpuText> cpu_text = std::vector<CpuText>(1000);
  // Four zero-padded digits per value below 10^4, as little-endian words:
  // the time's last digits and small argument values come from here.
  std::vector<uint32_t> digits4 = std::vector<uint32_t>(10000);

  TextTables() {
    for (uint32_t c = 0; c < 1000; ++c) {
      char* q = put_padded(cpu_text[c].text, c, 3);
      q = put(q, std::string_view("] "));
      *q = '\0';
    }
    for (uint32_t v = 0; v < 10000; ++v) {
      char d[4];
      put_padded(d, v, 4);
      std::memcpy(&digits4[v], d, 4);
    }
  }
};

class TextDump : public PassConsumer {
 public:
  TextDump(const DumpSetup& setup, const TextTables& tables, DumpState& state, OutputBuffer& out,
           uint64_t start)
      : setup_(setup), tables_(tables), state_(state), out_(out), start_(start), slots_(kSlots) {}

  void on_process(uint32_t file, uint32_t, const format::ProcessEvent& p) {
    state_.on_process(file, p);
    for (Slot& slot : slots_) slot.valid = false;  // names may have changed
  }

  void on_event(uint32_t site, uint32_t file, uint32_t, const format::Event& e, uint64_t time) {
    const SitePrefix& sp = setup_.prefixes[site];
    const size_t nargs = std::min<size_t>(e.arg_count, format::kMaxArgs);
    const ThreadPrefix& tp = thread_prefix(file, e);
    const size_t string_room = e.string_mask == 0 ? 0 : string_args_room(e, nargs, text_string_room);
    char* p = out_.begin(128 + tp.len + sp.padded_len + 2 * kOvershoot + (kMaxArgChars + 8) * nargs +
                         sp.labels_len + string_room);
    if (tp.len <= ThreadPrefix::kInline) {
      p = put_chunked(p, tp.text, tp.len);
    } else {
      p = put(p, tp.long_text);
    }
    p = put_cpu_and_time(p, e.cpu, time);
    p = put_chunked(p, sp.padded.data(), sp.padded_len);
    p = e.string_mask != 0 ? put_args_with_strings(p, sp, e, nargs) : put_numbers(p, sp, e, nargs);
    p = put(p, sp.closing);
    *p++ = '\n';
    out_.commit(p);
    if (e.stack_depth > 0) append_stack(e, file);
    out_.maybe_flush();
  }

 private:
  struct Slot {
    bool valid = false;
    uint32_t tid = 0, pid = 0, file = 0;
    ThreadPrefix prefix;
  };
  static constexpr size_t kSlots = 1024;

  // "host comm pid/tid [" of the event's thread, from a direct-mapped cache.
  const ThreadPrefix& thread_prefix(uint32_t file, const format::Event& e) {
    Slot& slot = slots_[e.tid & (kSlots - 1)];
    if (slot.valid && e.tid == slot.tid && e.pid == slot.pid && file == slot.file) return slot.prefix;
    std::string line;
    if (setup_.hosts) line += setup_.host_labels[file];
    line += state_.shown(state_.names.thread_name(setup_.domains[file], e.pid, e.tid));
    line += ' ';
    line += std::to_string(e.pid);
    line += '/';
    line += std::to_string(e.tid);
    // In a container's PID namespace: the numbers it has there too.
    if (const NamespaceIds* ns = state_.names.thread_namespace(setup_.domains[file], e.tid)) {
      line += ns->known()
                  ? " (ns " + std::to_string(ns->ns_pid) + "/" + std::to_string(ns->ns_tid) + ")"
                  : std::string(" (ns ?)");
    }
    line += " [";
    slot.prefix.len = line.size();
    if (line.size() <= ThreadPrefix::kInline) {
      std::memcpy(slot.prefix.text, line.data(), line.size());
      slot.prefix.long_text.clear();
    } else {
      slot.prefix.long_text = std::move(line);
    }
    slot.valid = true;
    slot.tid = e.tid;
    slot.pid = e.pid;
    slot.file = file;
    return slot.prefix;
  }

  // "NNN] S.NNNNNNNNN": in time order only the last digits of the time change
  // from line to line, so "S.NNNNN" is kept for the 10^4 ns block starting at
  // block_start_ and the 4 digits below it are added.
  char* put_cpu_and_time(char* p, uint32_t cpu, uint64_t time) {
    if (cpu < 1000) {
      std::memcpy(p, tables_.cpu_text[cpu].text, 8);
      p += 5;
    } else {
      p = put_padded(p, cpu, 10);
      p = put(p, std::string_view("] "));
    }
    const uint64_t rel = time >= start_ ? time - start_ : 0;
    // rel - block_start_ < 10^4 (unsigned: also false when rel went back)
    // means the cached text still holds: no division on the common path.
    uint64_t lo = rel - block_start_;
    if (lo >= 10000u) {
      const uint64_t hi = rel / 10000u;
      block_start_ = hi * 10000u;
      lo = rel - block_start_;
      char* q = put_u64(hi_text_, hi / 100000u);
      *q++ = '.';
      q = put_padded(q, hi % 100000u, 5);
      hi_len_ = static_cast<size_t>(q - hi_text_);
    }
    std::memcpy(p, hi_text_, 32);  // hi_len_ <= 27
    p += hi_len_;
    std::memcpy(p, &tables_.digits4[lo], 4);
    return p + 4;
  }

  char* put_args_with_strings(char* p, const SitePrefix& sp, const format::Event& e, size_t nargs) {
    for (size_t i = 0; i < nargs; ++i) {
      const int k = static_cast<int>(i);
      p = put_arg_label(p, sp, i);
      if (!e.has_arg(k)) {
        p = put(p, std::string_view("null"));
      } else if (e.is_string(k)) {
        p = put_text_string(p, e.string_arg(k).bytes, e.string_arg(k).truncated);
      } else if ((sp.pointers >> i) & 1) {
        p = put_hex_address(p, e.args[i]);
      } else {
        p = put_arg(p, e.args[i], sp.types[i], false);
      }
    }
    return p;
  }

  // Events without strings: small integers from the digit table.
  char* put_numbers(char* p, const SitePrefix& sp, const format::Event& e, size_t nargs) {
    const uint32_t* digits4 = tables_.digits4.data();
    for (size_t i = 0; i < nargs; ++i) {
      p = put_arg_label(p, sp, i);
      if (!e.has_arg(static_cast<int>(i))) {
        p = put(p, std::string_view("null"));
      } else if ((sp.pointers >> i) & 1) {
        p = put_hex_address(p, e.args[i]);
      } else if (uint64_t v = e.args[i]; sp.types[i] == ArgType::unsigned_int && v < 100000000u) {
        p = put_below_1e8(p, static_cast<uint32_t>(v), digits4);
      } else if (sp.types[i] == ArgType::signed_int && static_cast<int64_t>(v) > -100000000 &&
                 static_cast<int64_t>(v) < 100000000) {
        const int64_t sv = static_cast<int64_t>(v);
        if (sv < 0) *p++ = '-';
        p = put_below_1e8(p, static_cast<uint32_t>(sv < 0 ? -sv : sv), digits4);
      } else {
        p = put_arg(p, v, sp.types[i], false);
      }
    }
    return p;
  }

  // The frames of an event with a stack, indented under its line.
  void append_stack(const format::Event& e, uint32_t file) {
    stack_text_.clear();
    append_event_stack_text(stack_text_, state_.symbols, file, e, "        ");
    out_.append(stack_text_);
  }

  const DumpSetup& setup_;
  const TextTables& tables_;
  DumpState& state_;
  OutputBuffer& out_;
  const uint64_t start_;
  std::vector<Slot> slots_;
  uint64_t block_start_ = 0;  // the rel value hi_text_ stands for
  char hi_text_[48] = "0.00000";
  size_t hi_len_ = 7;
  std::string stack_text_;
};

}  // namespace

EventPass::Written write_text_dump(EventPass& pass, const DumpSetup& setup, std::FILE* out) {
  const TextTables tables;
  const uint64_t start = pass.input().timeline_start();
  return pass.write_in_order<TextDump, DumpState>(
      [&] { return std::make_unique<DumpState>(setup, pass.input().files()); }, out,
      [&](const Segment&, DumpState& state, OutputBuffer& buffer) {
        return TextDump(setup, tables, state, buffer, start);
      },
      [&](size_t, const MemoryText& t) { return std::fwrite(t.bytes.data(), 1, t.size, out) == t.size; });
}

}  // namespace usdt::report
