// usdt-report dump: one line per event in time order, as text, JSONL or CSV.
// The hot loop formats with std::to_chars into a large buffer; the per-site
// parts of a line (names, quoting) are built once per site, not per event.
//
// jsonl: the parts of a line that hold strings (provider, name, host) are
// built once per site and file with JsonWriter; the per-event loop adds only
// numbers and null, with put_* into the output buffer, for speed.
// csv: an argument that was not recorded is `null`, an argument the probe
// does not have (another probe has more) is an empty field. A path column
// follows name when two selected probes share a name in different files.
//
// String arguments (report/output/string_text.h): text "quoted, escaped", with `...`
// after the closing quote when the recorder cut the string; jsonl a JSON
// string, and the line gets "truncated_args":[i,...] when one was cut; csv
// an RFC 4180 quoted field, and the header gets a last column truncated_args
// (the indexes of the cut ones, space-separated) when a selected probe has
// string arguments. Events without strings (string_mask 0) take the loops
// below unchanged: one test per event.
//
// Call stacks (format 1.3, report/output/stack_text.h): text prints the frames
// under their event, jsonl adds "stack":[...] (and "stack_truncated":true),
// csv a last stack column when the trace holds object blocks (the header is
// fixed before the first event, and a trace without them keeps its columns).
// Each frame is named once per mapping set and address and printed from
// its cached text; events without a stack take the loops unchanged.
//
// Times: text shows seconds since the timeline start ("12.000345678");
// jsonl and csv give time_ns, the event's CLOCK_MONOTONIC value exactly as
// recorded (comparable with the recording host's clock, not shifted).
#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "report/output/arg_format.h"
#include "report/commands.h"
#include "report/output/json_text.h"
#include "report/output/json_writer.h"
#include "report/input/ordered_segments.h"
#include "report/output/output_buffer.h"
#include "report/input/process_history.h"
#include "report/input/process_names.h"
#include "report/input/segments.h"
#include "report/output/stack_text.h"
#include "report/output/string_text.h"

namespace usdt::report {

namespace {

enum class DumpFormat { text, jsonl, csv };

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// What a line needs about a site, precomputed.
struct SitePrefix {
  std::string text;  // text: "provider:name"; jsonl: ,"provider":..,"name":..,"args":[ ; csv: provider,name
  const SiteInfo* info = nullptr;
  // text only: ": provider:name" in 16-byte-padded storage (see put_chunked)
  // and the argument types, so the hot loop does no lookups per argument.
  std::vector<char> padded;
  size_t padded_len = 0;
  ArgType types[format::kMaxArgs] = {};
  // text only, for a site whose arguments have names: " name=" or " argN="
  // per argument (else the fixed kTextArgLabels), and their total length.
  std::vector<std::string> labels;
  size_t labels_len = 0;
  // text only: what follows the last argument; ")" for a function's entry
  // shown as a call, "work(n=3, m=10)".
  std::string closing;
};

// Copies len bytes in 16-byte steps from storage padded to a multiple of 16:
// a fixed-size copy per step instead of a memcpy call of unknown length. May
// write up to 15 bytes past p + len (kOvershoot; begin() space covers it).
constexpr size_t kOvershoot = 16;
inline char* put_chunked(char* p, const char* src, size_t len) {
  for (size_t i = 0; i < len; i += 16) std::memcpy(p + i, src + i, 16);
  return p + len;
}
std::vector<char> padded_copy(std::string_view s) {
  std::vector<char> v((s.size() + 15) / 16 * 16 + 16, '\0');
  std::memcpy(v.data(), s.data(), s.size());
  return v;
}

// The text labels " argN=" as 8-byte words with their lengths.
struct ArgLabel {
  char text[8];
  size_t len;
};
constexpr ArgLabel kTextArgLabels[format::kMaxArgs] = {
    {" arg0=", 6}, {" arg1=", 6}, {" arg2=", 6}, {" arg3=", 6},  {" arg4=", 6},  {" arg5=", 6},
    {" arg6=", 6}, {" arg7=", 6}, {" arg8=", 6}, {" arg9=", 6}, {" arg10=", 7}, {" arg11=", 7}};

// Writes argument i's label of a site: its name or argN.
inline char* put_arg_label(char* p, const SitePrefix& sp, size_t i) {
  if (sp.labels.empty()) {
    std::memcpy(p, kTextArgLabels[i].text, 8);
    return p + kTextArgLabels[i].len;
  }
  std::memcpy(p, sp.labels[i].data(), sp.labels[i].size());
  return p + sp.labels[i].size();
}

// The start of a text line for one thread of one file: host label, padded
// comm, "pid/tid [". Kept inline when short (the usual case).
struct ThreadPrefix {
  static constexpr size_t kInline = 96;
  char text[kInline + kOvershoot];
  size_t len = 0;
  std::string long_text;  // when len > kInline
};

// Room for the string arguments of e, at room(bytes) each (0 when it has none).
template <typename Room>
size_t string_args_room(const format::Event& e, size_t nargs, Room room) {
  size_t n = 0;
  for (size_t i = 0; i < nargs; ++i) {
    int k = static_cast<int>(i);
    if (e.is_string(k) && e.has_arg(k)) n += room(e.string_arg(k).bytes);
  }
  return n;
}

// JSON strings take at most 6 bytes per input byte (\u00NN, \ufffd).
size_t json_string_room(std::string_view s) { return 6 * s.size() + 2; }

// The indexes of e's cut string arguments, separated by sep (3 bytes each at most).
char* put_truncated_indexes(char* p, const format::Event& e, size_t nargs, char sep) {
  bool first = true;
  for (size_t i = 0; i < nargs; ++i) {
    int k = static_cast<int>(i);
    if (!e.is_string(k) || !e.has_arg(k) || !e.string_arg(k).truncated) continue;
    if (!first) *p++ = sep;
    first = false;
    p = put_int(p, k);
  }
  return p;
}

int finish_dump(TraceInput& input, OutputBuffer& out, CommandIo io) {
  out.flush();
  report_read_problems(input, io.err);
  if (out.failed()) {
    print_error(io.err, "cannot write the output (disk full or closed pipe?)");
    return 1;
  }
  return 0;
}

// Decimal digits of v < 10^8 from a table of 4-digit groups (digits4[x] is
// x as four zero-padded digits): the head without leading zeros, then the
// tail. Stores up to 8 bytes.
inline char* put_below_1e8(char* p, uint32_t v, const uint32_t* digits4) {
  uint32_t head = v, tail = 0;
  const bool split = v >= 10000;
  if (split) {
    head = v / 10000u;
    tail = v % 10000u;
  }
  const int n = 1 + (head >= 10) + (head >= 100) + (head >= 1000);
  const uint32_t w = digits4[head] >> ((4 - n) * 8);
  std::memcpy(p, &w, 4);
  p += n;
  if (split) {
    std::memcpy(p, &digits4[tail], 4);
    p += 4;
  }
  return p;
}

// What every reader of one dump shares, fixed before the first event.
struct DumpSetup {
  DumpFormat format = DumpFormat::text;
  const EventFilter* filter = nullptr;
  const ProbeCatalog* catalog = nullptr;
  std::vector<uint32_t> domains;  // per file (ProcessNames)
  bool hosts = false;             // events carry their host
  std::vector<SitePrefix> prefixes;
  std::vector<std::string> host_labels;  // per file, escaped for the format
  size_t max_args = 0;                   // csv: argument columns
  bool strings = false;                  // csv: a truncated_args column
  bool stacks = false;                   // csv: a stack column
  std::string unknown_name;              // a thread the trace never named
};

// What a reader of the dump learns from the process records as it goes:
// thread names and the mappings stacks are named against. A segment's
// reader starts from every process record before it (dump_in_segments).
class DumpState {
 public:
  DumpState(const DumpSetup& setup, const std::vector<TraceFileInfo>& files)
      : symbols(files), setup_(setup) {}
  void on_process(uint32_t file, const format::ProcessEvent& p) {
    names.on_process(setup_.domains[file], p);
    symbols.on_process(file, p);
  }
  // A name as printed (text: right-aligned in 16; csv: quoted).
  const std::string& shown(uint32_t n) {
    if (n == ProcessNames::kNoName) return setup_.unknown_name;
    while (shown_names_.size() <= n) {
      const std::string& raw = names.name(static_cast<uint32_t>(shown_names_.size()));
      if (setup_.format == DumpFormat::text) {
        shown_names_.push_back(raw.size() < 16 ? std::string(16 - raw.size(), ' ') + raw : raw);
      } else {
        shown_names_.push_back(csv_field(raw));
      }
    }
    return shown_names_[n];
  }

  ProcessNames names;
  StackSymbolizer symbols;

 private:
  const DumpSetup& setup_;
  // A deque: callers keep pointers to its strings across growth.
  std::deque<std::string> shown_names_;
};

// The text format's loop, separate from jsonl/csv so that it can keep whole
// line prefixes per thread: "host comm pid/tid [" is built once per thread
// (and again after a process record), not per event.
void dump_text(const DumpSetup& setup, TraceInput& input, DumpState& state, OutputBuffer& out) {
  const EventFilter& filter = *setup.filter;
  const ProbeCatalog& catalog = *setup.catalog;
  const std::vector<SitePrefix>& prefixes = setup.prefixes;
  const std::vector<std::string>& host_labels = setup.host_labels;
  const bool hosts = setup.hosts;
  StackSymbolizer& symbols = state.symbols;
  struct Slot {
    bool valid = false;
    uint32_t tid = 0, pid = 0, file = 0;
    ThreadPrefix prefix;
  };
  constexpr size_t kSlots = 1024;
  std::vector<Slot> slots(kSlots);
  // "NNN] " per cpu below 1000 as 8-byte words: the [%3u] field.
  struct CpuText {
    char text[8];
  };
  std::vector<CpuText> cpu_text(1000);
  for (uint32_t c = 0; c < 1000; ++c) {
    char* q = put_padded(cpu_text[c].text, c, 3);
    q = put(q, std::string_view("] "));
    *q = '\0';
  }
  // Four zero-padded digits per value below 10^4, as little-endian words:
  // the time's last digits and small argument values come from here.
  std::vector<uint32_t> digits4(10000);
  for (uint32_t v = 0; v < 10000; ++v) {
    char d[4];
    put_padded(d, v, 4);
    std::memcpy(&digits4[v], d, 4);
  }
  // In time order only the last digits of the time change from line to line:
  // keep "S.NNNNN" for the 10^4 ns block starting at block_start and add
  // the 4 digits below it.
  uint64_t block_start = 0;  // the rel value the cached text stands for
  char hi_text[48] = "0.00000";
  size_t hi_len = 7;

  // The frames of an event with a stack, indented under its line.
  std::string stack_text;
  auto append_stack = [&](const format::Event& e, uint32_t file) {
    stack_text.clear();
    append_event_stack_text(stack_text, symbols, file, e, "        ");
    out.append(stack_text);
  };

  const uint64_t start = input.timeline_start();
  Record r;
  while (input.next(r)) {
    if (r.kind == format::RecordKind::process) {
      state.on_process(r.file, *r.process);
      for (Slot& slot : slots) slot.valid = false;  // names may have changed
      continue;
    }
    if (r.kind != format::RecordKind::event) continue;
    const format::Event& e = *r.event;
    uint32_t site = catalog.global_site(r.file, e.site_id);
    if (!filter.accepts(site, e, r.time)) continue;
    const SitePrefix& sp = prefixes[site];
    const size_t nargs = std::min<size_t>(e.arg_count, format::kMaxArgs);
    Slot& slot = slots[e.tid & (kSlots - 1)];
    if (!slot.valid || e.tid != slot.tid || e.pid != slot.pid || r.file != slot.file) {
      std::string line;
      if (hosts) line += host_labels[r.file];
      line += state.shown(state.names.thread_name(setup.domains[r.file], e.pid, e.tid));
      line += ' ';
      line += std::to_string(e.pid);
      line += '/';
      line += std::to_string(e.tid);
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
      slot.file = r.file;
    }
    const ThreadPrefix& tp = slot.prefix;
    const size_t string_room =
        e.string_mask == 0 ? 0 : string_args_room(e, nargs, text_string_room);
    char* p = out.begin(128 + tp.len + sp.padded_len + 2 * kOvershoot + (kMaxArgChars + 8) * nargs + sp.labels_len +
                        string_room);
    if (tp.len <= ThreadPrefix::kInline) {
      p = put_chunked(p, tp.text, tp.len);
    } else {
      p = put(p, tp.long_text);
    }
    if (e.cpu < 1000) {
      std::memcpy(p, cpu_text[e.cpu].text, 8);
      p += 5;
    } else {
      p = put_padded(p, e.cpu, 10);
      p = put(p, std::string_view("] "));
    }
    uint64_t rel = r.time >= start ? r.time - start : 0;
    // rel - block_start < 10^4 (unsigned: also false when rel went back)
    // means the cached text still holds: no division on the common path.
    uint64_t lo = rel - block_start;
    if (lo >= 10000u) {
      uint64_t hi = rel / 10000u;
      block_start = hi * 10000u;
      lo = rel - block_start;
      char* q = put_u64(hi_text, hi / 100000u);
      *q++ = '.';
      q = put_padded(q, hi % 100000u, 5);
      hi_len = static_cast<size_t>(q - hi_text);
    }
    std::memcpy(p, hi_text, 32);  // hi_len <= 27
    p += hi_len;
    std::memcpy(p, &digits4[lo], 4);
    p += 4;
    p = put_chunked(p, sp.padded.data(), sp.padded_len);
    if (e.string_mask != 0) {
      for (size_t i = 0; i < nargs; ++i) {
        int k = static_cast<int>(i);
        p = put_arg_label(p, sp, i);
        if (!e.has_arg(k)) {
          p = put(p, std::string_view("null"));
        } else if (e.is_string(k)) {
          p = put_text_string(p, e.string_arg(k).bytes, e.string_arg(k).truncated);
        } else {
          p = put_arg(p, e.args[i], sp.types[i], false);
        }
      }
      p = put(p, sp.closing);
      *p++ = '\n';
      out.commit(p);
      if (e.stack_depth > 0) append_stack(e, r.file);
      out.maybe_flush();
      continue;
    }
    for (size_t i = 0; i < nargs; ++i) {
      p = put_arg_label(p, sp, i);
      if (!e.has_arg(static_cast<int>(i))) {
        p = put(p, std::string_view("null"));
      } else if (uint64_t v = e.args[i]; sp.types[i] == ArgType::unsigned_int && v < 100000000u) {
        p = put_below_1e8(p, static_cast<uint32_t>(v), digits4.data());
      } else if (sp.types[i] == ArgType::signed_int && static_cast<int64_t>(v) > -100000000 &&
                 static_cast<int64_t>(v) < 100000000) {
        int64_t sv = static_cast<int64_t>(v);
        if (sv < 0) *p++ = '-';
        p = put_below_1e8(p, static_cast<uint32_t>(sv < 0 ? -sv : sv), digits4.data());
      } else {
        p = put_arg(p, v, sp.types[i], false);
      }
    }
    p = put(p, sp.closing);
    *p++ = '\n';
    out.commit(p);
    if (e.stack_depth > 0) append_stack(e, r.file);
    out.maybe_flush();
  }
}

// The jsonl and csv loop.
void dump_rows(const DumpSetup& setup, TraceInput& input, DumpState& state, OutputBuffer& out) {
  const DumpFormat format = setup.format;
  const EventFilter& filter = *setup.filter;
  const ProbeCatalog& catalog = *setup.catalog;
  const std::vector<SitePrefix>& prefixes = setup.prefixes;
  const std::vector<std::string>& host_labels = setup.host_labels;
  const bool hosts = setup.hosts;
  const size_t max_args = setup.max_args;
  const bool strings = setup.strings;
  const bool stacks = setup.stacks;
  const std::string& unknown_name = setup.unknown_name;
  StackSymbolizer& symbols = state.symbols;
  struct CommSlot {
    const std::string* comm = nullptr;
    uint32_t tid = 0, pid = 0, file = 0;
  };
  constexpr size_t kCommCacheSize = 1024;
  std::vector<CommSlot> comm_cache(kCommCacheSize);
  std::string scratch;        // a JSON string argument
  std::string stack_scratch;  // the stack of the event, already formatted
  Record r;
  while (input.next(r)) {
    if (r.kind == format::RecordKind::process) {
      state.on_process(r.file, *r.process);
      for (CommSlot& slot : comm_cache) slot.comm = nullptr;  // names may have changed
      continue;
    }
    if (r.kind != format::RecordKind::event) continue;
    const format::Event& e = *r.event;
    uint32_t site = catalog.global_site(r.file, e.site_id);
    if (!filter.accepts(site, e, r.time)) continue;
    const SitePrefix& prefix = prefixes[site];
    const size_t nargs = std::min<size_t>(e.arg_count, format::kMaxArgs);
    // A direct-mapped cache of thread names: the name maps cost two hash
    // lookups, most events come from a few threads.
    CommSlot& slot = comm_cache[e.tid & (kCommCacheSize - 1)];
    if (slot.comm == nullptr || e.tid != slot.tid || e.pid != slot.pid || r.file != slot.file) {
      slot.comm = format == DumpFormat::jsonl
                      ? &unknown_name
                      : &state.shown(state.names.thread_name(setup.domains[r.file], e.pid, e.tid));
      slot.tid = e.tid;
      slot.pid = e.pid;
      slot.file = r.file;
    }
    const std::string& comm = *slot.comm;
    stack_scratch.clear();
    if (e.stack_depth > 0 || e.stack_truncated) {
      MappingsRef m = symbols.mappings(r.file, e.pid);
      if (format == DumpFormat::jsonl) {
        JsonWriter w(stack_scratch);
        w.continue_object();
        write_stack_json(w, symbols, m.get(), e.stack, e.stack_depth, e.stack_truncated);
      } else if (stacks) {
        stack_scratch = csv_field(
            stack_labels_joined(symbols, m.get(), e.stack, e.stack_depth, e.stack_truncated));
      }
    }
    size_t string_room = stack_scratch.size();
    if (e.string_mask != 0) {
      string_room += format == DumpFormat::jsonl
                         ? 24 + 3 * nargs + string_args_room(e, nargs, json_string_room)
                         : 3 * nargs + string_args_room(e, nargs, csv_string_room);
    }
    char* p = out.begin(160 + host_labels[r.file].size() + comm.size() + prefix.text.size() +
                        (kMaxArgChars + 8) * std::max(nargs, max_args) + string_room);
    if (format == DumpFormat::jsonl) {
      p = put(p, std::string_view("{\"time_ns\":"));
      p = put_int(p, e.time_ns);
      if (hosts) p = put(p, host_labels[r.file]);
      p = put(p, std::string_view(",\"pid\":"));
      p = put_int(p, e.pid);
      p = put(p, std::string_view(",\"tid\":"));
      p = put_int(p, e.tid);
      p = put(p, std::string_view(",\"cpu\":"));
      p = put_int(p, e.cpu);
      p = put(p, prefix.text);
      for (size_t i = 0; i < nargs; ++i) {
        if (i) p = put(p, ',');
        if (!e.has_arg(static_cast<int>(i))) {
          p = put(p, std::string_view("null"));
        } else if (e.is_string(static_cast<int>(i))) {
          scratch.clear();
          append_json_string(scratch, e.string_arg(static_cast<int>(i)).bytes);
          p = put(p, scratch);
        } else {
          p = put_arg(p, e.args[i], arg_type_at(prefix.info, static_cast<int>(i)), true);
        }
      }
      if (e.string_mask != 0 && any_truncated_string(e)) {
        p = put(p, std::string_view("],\"truncated_args\":["));
        p = put_truncated_indexes(p, e, nargs, ',');
        p = put(p, ']');
      } else {
        p = put(p, ']');
      }
      p = put(p, stack_scratch);
      p = put(p, std::string_view("}\n"));
    } else {
      if (hosts) p = put(p, host_labels[r.file]);
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
      // A missing argument (the probe has it, its value was not recorded)
      // is null; an argument the probe does not have is an empty field.
      for (size_t i = 0; i < max_args; ++i) {
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
      if (strings) {
        p = put(p, ',');
        if (e.string_mask != 0) p = put_truncated_indexes(p, e, nargs, ' ');
      }
      if (stacks) {
        p = put(p, ',');
        p = put(p, stack_scratch);
      }
      p = put(p, '\n');
    }
    out.commit(p);
    out.maybe_flush();
  }
}

void dump_records(const DumpSetup& setup, TraceInput& input, DumpState& state, OutputBuffer& out) {
  if (setup.format == DumpFormat::text) {
    dump_text(setup, input, state, out);
  } else {
    dump_rows(setup, input, state, out);
  }
}

// A dump on several threads (report/input/ordered_segments.h), in segments of
// about kSegmentRecords records (text lines of about 80 bytes: some 5 MB),
// at most two per thread formatted ahead of the output. Each segment's
// reader starts from the process records before it (ProcessHistory,
// carried by each thread from its last segment: CarriedStates).
// nullopt, with nothing written, when the input cannot be cut or the
// history is not worth reading: the caller then dumps serially. Else
// whether every write succeeded.
constexpr uint64_t kSegmentRecords = uint64_t{1} << 16;

std::optional<bool> dump_in_segments(const DumpSetup& setup, TraceInput& input, unsigned threads,
                                     std::FILE* out) {
  if (threads < 2) return std::nullopt;
  const uint64_t parts = std::clamp<uint64_t>(input.indexed_records().all / kSegmentRecords,
                                              uint64_t{threads} * 4, 1 << 16);
  const std::vector<uint64_t> bounds = input.segment_bounds(static_cast<unsigned>(parts));
  if (bounds.size() < 3) return std::nullopt;
  const std::optional<ProcessHistory> history = ProcessHistory::open(input, *setup.filter);
  if (!history) return std::nullopt;
  CarriedStates<DumpState> carried(
      *history, [&] { return std::make_unique<DumpState>(setup, input.files()); });
  return write_segments_in_order(input, bounds, threads, 2 * size_t{threads}, out,
                                 [&](size_t k, TraceInput& segment, MemoryText& text) {
                                   DumpState& state = carried.take(bounds[k]);
                                   {
                                     OutputBuffer buffer(&text);
                                     dump_records(setup, segment, state, buffer);
                                   }
                                   carried.finished(bounds[k + 1]);
                                 });
}

}  // namespace

int run_dump(const ReportOptions& options, TraceInput& input, CommandIo io) {
  DumpFormat format;
  if (options.format == "text") {
    format = DumpFormat::text;
  } else if (options.format == "jsonl") {
    format = DumpFormat::jsonl;
  } else if (options.format == "csv") {
    format = DumpFormat::csv;
  } else {
    print_error(io.err, "dump cannot write format '" + options.format + "' (text, jsonl or csv)");
    return 2;
  }
  Result<EventFilter> filter = make_filter(options, input);
  if (!filter) {
    print_error(io.err, filter.error().message());
    return 1;
  }
  const ProbeCatalog& catalog = input.catalog();
  DumpSetup setup;
  setup.format = format;
  setup.filter = &*filter;
  setup.catalog = &catalog;
  setup.domains = file_domains(input);
  const bool hosts = setup.hosts = input.hosts_differ();

  std::vector<SitePrefix>& prefixes = setup.prefixes;
  prefixes.resize(catalog.site_count());
  size_t& max_args = setup.max_args;
  bool& strings = setup.strings;  // a selected site has string arguments
  // csv: a path column after name when two selected probes share a name in
  // different files (functions of one name), as jsonl then gives "path".
  bool paths = false;
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    paths = paths || (filter->site_selected(s) && catalog.probe_of_site(s).ambiguous());
  }
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    const ProbeInfo& p = catalog.probe_of_site(s);
    prefixes[s].info = &catalog.site(s);
    if (filter->site_selected(s)) {
      max_args = std::max(max_args, catalog.site(s).arg_types.size());
      strings = strings || catalog.site(s).has_strings;
    }
    switch (format) {
      case DumpFormat::text: {
        prefixes[s].text = p.shown_name;
        const SiteInfo& site = catalog.site(s);
        // A function probe whose parameters DWARF named (or that has none)
        // reads as a call: "work(n=3, m=10)", "work() = 13"; the file, where
        // shown, follows the call.
        const bool call =
            (site.kind == format::ProbeKind::uprobe || site.kind == format::ProbeKind::uretprobe) &&
            (site.has_names || site.arg_types.empty());
        const bool ret = site.kind == format::ProbeKind::uretprobe;
        std::string shown = ": " + (call ? p.full_name : p.shown_name);
        if (call) {
          shown += ret ? "()" : "(";
          prefixes[s].closing = (ret ? "" : ")") + p.shown_name.substr(p.full_name.size());
        }
        prefixes[s].padded = padded_copy(shown);
        prefixes[s].padded_len = shown.size();
        for (int i = 0; i < format::kMaxArgs; ++i)
          prefixes[s].types[i] = arg_type_at(&catalog.site(s), i);
        if (catalog.site(s).has_names) {
          // Events may carry more arguments than the site describes: argN for those.
          for (size_t i = 0; i < format::kMaxArgs; ++i) {
            std::string label = " " + catalog.site(s).arg_label(i) + "=";
            if (call && ret && i == 0) label = " = ";
            if (call && !ret) label = (i == 0 ? "" : ", ") + catalog.site(s).arg_label(i) + "=";
            prefixes[s].labels.push_back(std::move(label));
            prefixes[s].labels_len += prefixes[s].labels.back().size();
          }
        }
        break;
      }
      case DumpFormat::jsonl: {
        // The middle of the line: ,"provider":..,"name":..,"args":[
        JsonWriter w(prefixes[s].text);
        w.continue_object().key("provider").string(p.provider).key("name").string(p.name);
        // The file, where another file has a function of the same name.
        if (p.ambiguous()) w.key("path").string(p.path);
        w.key("args").begin_array();
        break;
      }
      case DumpFormat::csv:
        prefixes[s].text = csv_field(p.provider) + "," + csv_field(p.name);
        if (paths) prefixes[s].text += "," + csv_field(p.path);
        break;
    }
  }
  // Host labels per file, already escaped for the format.
  std::vector<std::string>& host_labels = setup.host_labels;
  size_t host_width = 0;
  for (const TraceFileInfo& f : input.files())
    host_width = std::max(host_width, f.metadata.hostname.size());
  for (const TraceFileInfo& f : input.files()) {
    switch (format) {
      case DumpFormat::text:
        host_labels.push_back(f.metadata.hostname +
                              std::string(host_width - f.metadata.hostname.size() + 1, ' '));
        break;
      case DumpFormat::jsonl: {
        std::string label;
        JsonWriter(label).continue_object().key("host").string(f.metadata.hostname);
        host_labels.push_back(std::move(label));
        break;
      }
      case DumpFormat::csv:
        host_labels.push_back(csv_field(f.metadata.hostname) + ",");
        break;
    }
  }

  // csv has a fixed header: a stack column when the trace has the symbols
  // of stacks (object blocks, format 1.3), so files without stacks keep
  // their columns.
  bool& stacks = setup.stacks;
  for (const TraceFileInfo& f : input.files()) stacks = stacks || !f.objects().empty();

  OutputBuffer out(io.out);
  if (format == DumpFormat::csv) {
    std::string header = hosts ? "host," : "";
    header += "time_ns,pid,tid,cpu,comm,provider,name";
    if (paths) header += ",path";
    for (size_t i = 0; i < max_args; ++i) header += ",arg" + std::to_string(i);
    if (strings) header += ",truncated_args";
    if (stacks) header += ",stack";
    header += "\n";
    out.append(header);
  }

  setup.unknown_name = format == DumpFormat::text ? std::string(15, ' ') + "?" : "";

  out.flush();  // the header, before segments write
  if (std::optional<bool> written =
          dump_in_segments(setup, input, report_threads(options.jobs), io.out)) {
    report_read_problems(input, io.err);
    if (!*written) {
      print_error(io.err, "cannot write the output (disk full or closed pipe?)");
      return 1;
    }
    return 0;
  }
  DumpState state(setup, input.files());
  dump_records(setup, input, state, out);
  return finish_dump(input, out, io);
}

}  // namespace usdt::report
