#include "formats/table_codec.h"

#include <algorithm>

#include "formats/arg_name.h"

namespace usdt::format {

namespace {

constexpr uint64_t kMaxU32 = 0xffffffffu;
constexpr uint64_t kMaxMetadataCpus = 1u << 16;
// Longer than any name a writer makes (256 bytes): room for other writers.
constexpr uint64_t kMaxArgName = 4096;
// The fewest bytes of a probe table entry: its length, id, kind, four empty
// strings, two offsets and an argument count.
constexpr uint64_t kMinProbeEntry = 10;
// What a site holds besides its strings and arguments: itself, and its line
// in each of the reader's per-site tables (reader_state.h); twice, since
// those tables grow by doubling as added probe sites blocks come.
constexpr uint64_t kSiteBytes = 2 * (sizeof(ProbeSite) + 4);
// The fewest bytes of a symbol: its offset delta, size and name length.
constexpr uint64_t kMinSymbol = 3;

// Probe table entries (the probe table's and an added sites block's), each
// its length then its fields.
void encode_probe_entries(ByteWriter& w, const std::vector<ProbeSite>& sites);
// count entries whose ids must be first_id, first_id + 1, ...
Result<std::vector<ProbeSite>> decode_probe_entries(ByteCursor& in, uint64_t count,
                                                    uint32_t first_id, ReadBudget* budget);

}  // namespace

void encode_metadata(std::string& out, const TraceMetadata& m) {
  ByteWriter w(out);
  w.str(m.hostname);
  w.str(m.kernel_release);
  w.str(m.arch);
  w.varint(m.page_size);
  w.str(m.command_line);
  w.str(m.recorder_version);
  w.varint(m.start_monotonic_ns);
  w.varint(m.start_realtime_ns);
  w.varint(m.cpus.size());  // 1.6
  for (uint32_t cpu : m.cpus) w.varint(cpu);
  // 1.7: the file's place among its recording's files.
  const SeriesInfo& s = m.series;
  w.u8(static_cast<uint8_t>(s.role));
  w.str(s.recording_id);
  w.varint(s.sequence);
  w.varint(s.carried_ns);
  w.varint(s.window_begin_ns);
  w.varint(s.window_end_ns);
  w.str(s.trigger);
  w.varint(s.trigger_site);
  w.varint(s.trigger_time_ns);
  w.varint(s.trigger_pid);
  w.varint(s.trigger_tid);
  w.varint(s.trigger_start_ns);
  w.varint(s.suppressed);
}

namespace {

// 1.7: a file's place among the files of its recording (FORMAT.md 3.3.1).
Status decode_series(ByteCursor& in, SeriesInfo& series) {
  const uint8_t role = in.u8();
  series.role = role <= 2 ? static_cast<FileRole>(role) : FileRole::whole;
  series.recording_id = in.str(kMaxString);
  series.sequence = static_cast<uint32_t>(in.varint_max(kMaxU32));
  series.carried_ns = in.varint();
  series.window_begin_ns = in.varint();
  series.window_end_ns = in.varint();
  series.trigger = in.str(kMaxString);
  series.trigger_site = static_cast<uint32_t>(in.varint_max(kMaxU32));
  series.trigger_time_ns = in.varint();
  series.trigger_pid = static_cast<uint32_t>(in.varint_max(kMaxU32));
  series.trigger_tid = static_cast<uint32_t>(in.varint_max(kMaxU32));
  series.trigger_start_ns = in.varint();
  series.suppressed = in.varint();
  if (!in.ok()) return Error("metadata's series fields are truncated or malformed");
  return Status::success();
}

}  // namespace

Result<TraceMetadata> decode_metadata(std::string_view body, ReadBudget* budget) {
  ByteCursor in(body);
  TraceMetadata m;
  m.hostname = in.str(kMaxString);
  m.kernel_release = in.str(kMaxString);
  m.arch = in.str(kMaxString);
  m.page_size = static_cast<uint32_t>(in.varint_max(kMaxU32));
  m.command_line = in.str(kMaxString);
  m.recorder_version = in.str(kMaxString);
  m.start_monotonic_ns = in.varint();
  m.start_realtime_ns = in.varint();
  // 1.6 appends the CPUs; a 1.5 file ends here. More CPUs than bytes left
  // (each takes one at least) is a bad count, not a reason to allocate.
  if (in.ok() && in.remaining() > 0) {
    const uint64_t n = in.varint_max(kMaxMetadataCpus);
    if (n > in.remaining())
      return Error("metadata claims " + std::to_string(n) + " CPUs, more than fit");
    for (uint64_t i = 0; i < n && in.ok(); ++i)
      m.cpus.push_back(static_cast<uint32_t>(in.varint_max(kMaxU32)));
  }
  if (!in.ok()) return Error("metadata is truncated or malformed");
  // 1.7: parts and snapshots. A 1.6 metadata ends here.
  if (in.remaining() != 0) {
    if (Status st = decode_series(in, m.series); !st) return st.error();
  }
  // The strings are copies of at most the body's bytes (seven of at most
  // 1 MiB each): taken once they are known.
  BudgetHold hold(budget);
  const uint64_t bytes = heap_bytes(m.hostname) + heap_bytes(m.kernel_release) +
                         heap_bytes(m.arch) + heap_bytes(m.command_line) +
                         heap_bytes(m.recorder_version) + heap_bytes(m.series.recording_id) +
                         heap_bytes(m.series.trigger) + m.cpus.capacity() * sizeof(uint32_t);
  if (!hold.take(bytes)) return Error("decoding the metadata " + over_budget_text(bytes, budget));
  hold.keep();
  return m;
}

void encode_probe_table(std::string& out, const std::vector<ProbeSite>& sites) {
  ByteWriter w(out);
  w.varint(sites.size());
  encode_probe_entries(w, sites);
}

Result<std::vector<ProbeSite>> decode_probe_table(std::string_view body, ReadBudget* budget) {
  ByteCursor in(body);
  uint64_t count = in.varint_max(std::min<uint64_t>(kMaxSites, in.remaining() / kMinProbeEntry));
  if (!in.ok()) {
    return Error("probe table count is malformed, exceeds " + std::to_string(kMaxSites) +
                 " or the entries its bytes can hold");
  }
  return decode_probe_entries(in, count, 0, budget);
}

void encode_added_sites(std::string& out, const std::vector<ProbeSite>& sites,
                        uint64_t active_since_ns) {
  ByteWriter w(out);
  w.varint(active_since_ns);
  w.varint(sites.size());
  encode_probe_entries(w, sites);
}

Result<std::vector<ProbeSite>> decode_added_sites(std::string_view body, uint32_t first_id,
                                                  uint64_t max_count, ReadBudget* budget) {
  ByteCursor in(body);
  uint64_t active_since_ns = in.varint();
  uint64_t count = in.varint_max(std::min<uint64_t>(max_count, in.remaining() / kMinProbeEntry));
  if (!in.ok()) {
    return Error("added probe sites block's count is malformed, exceeds the limit of " +
                 std::to_string(kMaxSites) + " sites or the entries its bytes can hold");
  }
  // A writer adds at least one site: an empty block is something else (a
  // chunk whose kind was damaged into 7, say).
  if (count == 0) return Error("added probe sites block lists no sites");
  auto sites = decode_probe_entries(in, count, first_id, budget);
  if (!sites) return sites.error();
  for (ProbeSite& s : *sites) s.active_since_ns = active_since_ns;
  return sites;
}

namespace {

void encode_probe_entries(ByteWriter& w, const std::vector<ProbeSite>& sites) {
  std::string entry;
  for (const auto& s : sites) {
    entry.clear();
    ByteWriter e(entry);
    e.varint(s.id);
    e.u8(static_cast<uint8_t>(s.kind));
    e.str(s.path);
    e.str(s.build_id);
    e.str(s.provider);
    e.str(s.name);
    e.varint(s.file_offset);
    e.varint(s.semaphore_offset);
    e.varint(s.args.size());
    for (const auto& a : s.args) {
      e.str(a.spec);
      e.u8(a.size);
      e.u8(static_cast<uint8_t>((a.is_signed ? 1 : 0) | (a.is_float ? 2 : 0) |
                                (a.is_string ? 4 : 0) | (a.is_frame ? 8 : 0) |
                                (a.is_pointer ? 16 : 0)));
      e.u8(static_cast<uint8_t>(a.location));
      e.u8(static_cast<uint8_t>(a.source));
    }
    // 1.2: the names, up to the last named argument.
    size_t named = 0;
    for (size_t i = 0; i < s.args.size(); ++i) {
      if (!s.args[i].name.empty()) named = i + 1;
    }
    e.varint(named);
    for (size_t i = 0; i < named; ++i) e.str(s.args[i].name);
    w.str(entry);
  }
}

// nargs argument descriptors of an entry into s.args.
void decode_arguments(ByteCursor& e, uint64_t nargs, ProbeSite& s) {
  s.args.reserve(nargs);
  for (uint64_t j = 0; j < nargs && e.ok(); ++j) {
    ArgDescriptor a;
    a.spec = e.str(kMaxString);
    a.size = e.u8();
    uint8_t flags = e.u8();
    a.is_signed = flags & 1;
    a.is_float = flags & 2;
    a.is_string = flags & 4;  // 1.1
    a.is_frame = flags & 8;     // 1.2
    a.is_pointer = flags & 16;  // 1.6; later bits are ignored
    uint8_t location = e.u8();
    uint8_t source = e.u8();
    // Values a newer writer may add become the "unknown" member.
    a.location = location <= 3 ? static_cast<ArgLocation>(location) : ArgLocation::undecodable;
    a.source = source <= 4 ? static_cast<ArgSource>(source) : ArgSource::not_in_sample;
    s.args.push_back(std::move(a));
  }
  // 1.2: argument names. An entry of an older file ends here.
  if (!e.ok() || e.remaining() == 0) return;
  uint64_t named = e.varint_max(s.args.size());
  for (uint64_t j = 0; j < named && e.ok(); ++j) s.args[j].name = e.str(kMaxArgName);
  // A name that breaks the rule, or repeats an earlier one, is dropped:
  // reports use names as selectors and print them unescaped.
  for (size_t j = 0; j < s.args.size(); ++j) {
    std::string& name = s.args[j].name;
    bool repeated = false;
    for (size_t k = 0; k < j && !repeated; ++k) repeated = s.args[k].name == name;
    if (repeated || (!name.empty() && !is_valid_arg_name(name, j))) name.clear();
  }
}

// The bytes a decoded site keeps outside its object: its strings and its
// arguments with theirs.
uint64_t site_heap_bytes(const ProbeSite& s) {
  uint64_t n = heap_bytes(s.path) + heap_bytes(s.build_id) + heap_bytes(s.provider) +
               heap_bytes(s.name) + s.args.capacity() * sizeof(ArgDescriptor);
  for (const ArgDescriptor& a : s.args) n += heap_bytes(a.spec) + heap_bytes(a.name);
  return n;
}

Result<std::vector<ProbeSite>> decode_probe_entries(ByteCursor& in, uint64_t count,
                                                    uint32_t first_id, ReadBudget* budget) {
  BudgetHold hold(budget);
  if (!hold.take_array(count, kSiteBytes)) {
    return Error("decoding " + std::to_string(count) + " probe sites " +
                 over_budget_text(count * kSiteBytes, budget));
  }
  std::vector<ProbeSite> sites;
  sites.reserve(count);
  for (uint64_t n = 0; n < count; ++n) {
    const uint64_t i = first_id + n;
    ByteCursor e = in.sub(in.varint());
    ProbeSite s;
    uint64_t id = e.varint();
    if (e.ok() && id != i) {
      return Error("probe site " + std::to_string(i) + " has id " + std::to_string(id));
    }
    s.id = static_cast<uint32_t>(i);
    s.kind = static_cast<ProbeKind>(e.u8());
    s.path = e.str(kMaxString);
    s.build_id = e.str(kMaxString);
    s.provider = e.str(kMaxString);
    s.name = e.str(kMaxString);
    s.file_offset = e.varint();
    s.semaphore_offset = e.varint();
    // Each descriptor takes at least five bytes (an empty spec, four u8).
    uint64_t nargs = e.varint_max(std::min<uint64_t>(kMaxArgs, e.remaining() / 5));
    if (e.ok()) decode_arguments(e, nargs, s);
    if (!in.ok() || !e.ok()) {
      return Error("probe site " + std::to_string(i) + " is truncated or malformed");
    }
    if (const uint64_t bytes = site_heap_bytes(s); !hold.take(bytes)) {
      return Error("decoding probe site " + std::to_string(i) + " " +
                   over_budget_text(hold.held() + bytes, budget));
    }
    sites.push_back(std::move(s));
  }
  hold.keep();
  return sites;
}

}  // namespace

void encode_object(std::string& out, const ObjectTable& object) {
  std::vector<const ObjectSymbol*> sorted;
  sorted.reserve(object.symbols.size());
  for (const ObjectSymbol& s : object.symbols) sorted.push_back(&s);
  std::stable_sort(sorted.begin(), sorted.end(), [](const ObjectSymbol* a, const ObjectSymbol* b) {
    return a->file_offset < b->file_offset;
  });
  ByteWriter w(out);
  w.str(std::string_view(object.build_id).substr(0, kMaxBuildId));
  w.str(std::string_view(object.path).substr(0, kMaxMappedPath));
  w.varint(sorted.size());
  uint64_t last = 0;
  for (const ObjectSymbol* s : sorted) {
    w.varint(s->file_offset - last);
    last = s->file_offset;
    w.varint(s->size);
    w.str(std::string_view(s->name).substr(0, kMaxSymbolName));
  }
}

Result<ObjectTable> decode_object(std::string_view body, ReadBudget* budget) {
  ByteCursor in(body);
  ObjectTable o;
  o.build_id = in.str(kMaxString);
  o.path = in.str(kMaxString);
  uint64_t n = in.varint_max(std::min<uint64_t>(kMaxObjectSymbols, in.remaining() / kMinSymbol));
  if (!in.ok()) return Error("object block is truncated or lists too many symbols");
  // Twice the table itself: a reader's list of tables may double its room.
  BudgetHold hold(budget);
  const uint64_t bytes = 2 * sizeof(ObjectTable) + heap_bytes(o.build_id) + heap_bytes(o.path) +
                         n * sizeof(ObjectSymbol);
  if (!hold.take(bytes)) {
    return Error("decoding its " + std::to_string(n) + " symbols " +
                 over_budget_text(bytes, budget));
  }
  o.symbols.reserve(n);
  uint64_t offset = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t delta = in.varint();
    if (delta > ~uint64_t{0} - offset) return Error("object block's symbol offsets overflow");
    offset += delta;
    uint64_t size = in.varint();
    std::string name = in.str(kMaxSymbolName);
    if (!in.ok()) return Error("object block's symbols are truncated or malformed");
    if (!hold.take(heap_bytes(name))) {
      return Error("decoding its " + std::to_string(n) + " symbols with their names " +
                   over_budget_text(hold.held() + heap_bytes(name), budget));
    }
    o.symbols.push_back(ObjectSymbol{offset, size, std::move(name)});
  }
  // Bytes after the symbols belong to a newer minor version: ignored.
  hold.keep();
  return o;
}

}  // namespace usdt::format
