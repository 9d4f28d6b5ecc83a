// dump's jsonl and csv formats: one JSON object or one CSV row per event.
// The parts of a line that hold strings (provider, name, host) come built
// from the setup; the per-event code adds only numbers, null and the
// string arguments, with put_* into the output buffer.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "report/dump/dump_command.h"
#include "report/dump/dump_put.h"
#include "report/output/arg_format.h"
#include "report/output/json_text.h"
#include "report/output/json_writer.h"
#include "report/output/stack_text.h"
#include "report/output/string_text.h"

namespace usdt::report {

namespace {

class RowDump : public PassConsumer {
 public:
  RowDump(const DumpSetup& setup, DumpState& state, OutputBuffer& out)
      : setup_(setup), state_(state), out_(out), comm_cache_(kCommCacheSize) {}

  void on_process(uint32_t file, uint32_t, const format::ProcessEvent& p) {
    state_.on_process(file, p);
    for (CommSlot& slot : comm_cache_) slot.comm = nullptr;  // names may have changed
  }

  void on_event(uint32_t site, uint32_t file, uint32_t, const format::Event& e, uint64_t) {
    const SitePrefix& prefix = setup_.prefixes[site];
    const size_t nargs = std::min<size_t>(e.arg_count, format::kMaxArgs);
    const std::string& comm = comm_of(file, e);
    format_stack(file, e);
    size_t string_room = stack_scratch_.size();
    if (e.string_mask != 0) {
      string_room += setup_.format == DumpFormat::jsonl
                         ? 24 + 3 * nargs + string_args_room(e, nargs, json_string_room)
                         : 3 * nargs + string_args_room(e, nargs, csv_string_room);
    }
    char* p = out_.begin(208 + setup_.host_labels[file].size() + comm.size() + prefix.text.size() +
                         (kMaxArgChars + 8) * std::max(nargs, setup_.max_args) + string_room);
    p = setup_.format == DumpFormat::jsonl ? put_jsonl(p, prefix, file, e, nargs)
                                           : put_csv(p, prefix, file, comm, e, nargs);
    out_.commit(p);
    out_.maybe_flush();
  }

 private:
  struct CommSlot {
    const std::string* comm = nullptr;
    uint32_t tid = 0, pid = 0, file = 0;
  };
  static constexpr size_t kCommCacheSize = 1024;

  // A direct-mapped cache of thread names: the name maps cost two hash
  // lookups, most events come from a few threads. (jsonl has no comm.)
  const std::string& comm_of(uint32_t file, const format::Event& e) {
    CommSlot& slot = comm_cache_[e.tid & (kCommCacheSize - 1)];
    if (slot.comm == nullptr || e.tid != slot.tid || e.pid != slot.pid || file != slot.file) {
      slot.comm = setup_.format == DumpFormat::jsonl
                      ? &setup_.unknown_name
                      : &state_.shown(state_.names.thread_name(setup_.domains[file], e.pid, e.tid));
      slot.tid = e.tid;
      slot.pid = e.pid;
      slot.file = file;
    }
    return *slot.comm;
  }

  // The event's stack, formatted for the line (empty without one).
  void format_stack(uint32_t file, const format::Event& e) {
    stack_scratch_.clear();
    if (e.stack_depth == 0 && !e.stack_truncated) return;
    StackSymbolizer& symbols = state_.symbols;
    MappingsRef m = symbols.mappings(file, e.pid);
    if (setup_.format == DumpFormat::jsonl) {
      JsonWriter w(stack_scratch_);
      w.continue_object();
      write_stack_json(w, symbols, m.get(), e.stack, e.stack_depth, e.stack_truncated);
    } else if (setup_.stacks) {
      stack_scratch_ =
          csv_field(stack_labels_joined(symbols, m.get(), e.stack, e.stack_depth, e.stack_truncated));
    }
  }

  // A thread in a container's PID namespace (format 1.8): its numbers there,
  // null when the recorder could not read them (at most 48 characters).
  char* put_namespace(char* p, uint32_t file, const format::Event& e) {
    const NamespaceIds* ns = state_.names.thread_namespace(setup_.domains[file], e.tid);
    if (ns == nullptr) return p;
    if (!ns->known()) return put(p, std::string_view(",\"ns_pid\":null,\"ns_tid\":null"));
    p = put(p, std::string_view(",\"ns_pid\":"));
    p = put_int(p, ns->ns_pid);
    p = put(p, std::string_view(",\"ns_tid\":"));
    return put_int(p, ns->ns_tid);
  }

  char* put_jsonl(char* p, const SitePrefix& prefix, uint32_t file, const format::Event& e, size_t nargs) {
    p = put(p, std::string_view("{\"time_ns\":"));
    p = put_int(p, e.time_ns);
    if (setup_.hosts) p = put(p, setup_.host_labels[file]);
    p = put(p, std::string_view(",\"pid\":"));
    p = put_int(p, e.pid);
    p = put(p, std::string_view(",\"tid\":"));
    p = put_int(p, e.tid);
    if (state_.names.any_namespace()) p = put_namespace(p, file, e);
    p = put(p, std::string_view(",\"cpu\":"));
    p = put_int(p, e.cpu);
    p = put(p, prefix.text);
    for (size_t i = 0; i < nargs; ++i) {
      if (i) p = put(p, ',');
      if (!e.has_arg(static_cast<int>(i))) {
        p = put(p, std::string_view("null"));
      } else if (e.is_string(static_cast<int>(i))) {
        scratch_.clear();
        append_json_string(scratch_, e.string_arg(static_cast<int>(i)).bytes);
        p = put(p, scratch_);
      } else {
        p = put_arg(p, e.args[i], arg_type_at(prefix.info, static_cast<int>(i)), true);
      }
    }
    if (e.string_mask != 0 && any_truncated_string(e)) {
      p = put(p, std::string_view("],\"truncated_args\":["));
      p = put_truncated_indexes(p, e, nargs, ',');
    }
    p = put(p, ']');
    p = put(p, stack_scratch_);
    return put(p, std::string_view("}\n"));
  }

  char* put_csv(char* p, const SitePrefix& prefix, uint32_t file, const std::string& comm, const format::Event& e,
                size_t nargs) {
    if (setup_.hosts) p = put(p, setup_.host_labels[file]);
    p = put_int(p, e.time_ns);
    p = put(p, ',');
    p = put_int(p, e.pid);
    p = put(p, ',');
    p = put_int(p, e.tid);
    p = put(p, ',');
    p = put_int(p, e.cpu);
    p = put(p, ',');
    p = put(p, comm);
    p = put(p, ',');
    p = put(p, prefix.text);
    // A missing argument (the probe has it, its value was not recorded) is
    // null; an argument the probe does not have is an empty field.
    for (size_t i = 0; i < setup_.max_args; ++i) {
      p = put(p, ',');
      if (i >= nargs) continue;
      if (!e.has_arg(static_cast<int>(i))) {
        p = put(p, std::string_view("null"));
      } else if (e.is_string(static_cast<int>(i))) {
        p = put_csv_string(p, e.string_arg(static_cast<int>(i)).bytes);
      } else {
        p = put_arg(p, e.args[i], arg_type_at(prefix.info, static_cast<int>(i)), false);
      }
    }
    if (setup_.strings) {
      p = put(p, ',');
      if (e.string_mask != 0) p = put_truncated_indexes(p, e, nargs, ' ');
    }
    if (setup_.stacks) {
      p = put(p, ',');
      p = put(p, stack_scratch_);
    }
    return put(p, '\n');
  }

  const DumpSetup& setup_;
  DumpState& state_;
  OutputBuffer& out_;
  std::vector<CommSlot> comm_cache_;
  std::string scratch_;        // a JSON string argument
  std::string stack_scratch_;  // the stack of the event, already formatted
};

}  // namespace

EventPass::Written write_row_dump(EventPass& pass, const DumpSetup& setup, std::FILE* out) {
  return pass.write_in_order<RowDump, DumpState>(
      [&] { return std::make_unique<DumpState>(setup, pass.input().files()); }, out,
      [&](const Segment&, DumpState& state, OutputBuffer& buffer) { return RowDump(setup, state, buffer); },
      [&](size_t, const MemoryText& t) { return std::fwrite(t.bytes.data(), 1, t.size, out) == t.size; });
}

}  // namespace usdt::report
