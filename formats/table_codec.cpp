#include "formats/table_codec.h"

#include <algorithm>

#include "formats/arg_name.h"

namespace usdt::format {

namespace {

constexpr uint64_t kMaxU32 = 0xffffffffu;
constexpr uint64_t kMaxMetadataCpus = 1u << 16;
// Longer than any name a writer makes (256 bytes): room for other writers.
constexpr uint64_t kMaxArgName = 4096;

// Probe table entries (the probe table's and an added sites block's), each
// its length then its fields.
void encode_probe_entries(ByteWriter& w, const std::vector<ProbeSite>& sites);
// count entries whose ids must be first_id, first_id + 1, ...
Result<std::vector<ProbeSite>> decode_probe_entries(ByteCursor& in, uint64_t count,
                                                    uint32_t first_id);

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

Result<TraceMetadata> decode_metadata(std::string_view body) {
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
  if (in.remaining() == 0) return m;
  SeriesInfo& s = m.series;
  const uint8_t role = in.u8();
  s.role = role <= 2 ? static_cast<FileRole>(role) : FileRole::whole;
  s.recording_id = in.str(kMaxString);
  s.sequence = static_cast<uint32_t>(in.varint_max(kMaxU32));
  s.carried_ns = in.varint();
  s.window_begin_ns = in.varint();
  s.window_end_ns = in.varint();
  s.trigger = in.str(kMaxString);
  s.trigger_site = static_cast<uint32_t>(in.varint_max(kMaxU32));
  s.trigger_time_ns = in.varint();
  s.trigger_pid = static_cast<uint32_t>(in.varint_max(kMaxU32));
  s.trigger_tid = static_cast<uint32_t>(in.varint_max(kMaxU32));
  s.trigger_start_ns = in.varint();
  s.suppressed = in.varint();
  if (!in.ok()) return Error("metadata's series fields are truncated or malformed");
  return m;
}

void encode_probe_table(std::string& out, const std::vector<ProbeSite>& sites) {
  ByteWriter w(out);
  w.varint(sites.size());
  encode_probe_entries(w, sites);
}

Result<std::vector<ProbeSite>> decode_probe_table(std::string_view body) {
  ByteCursor in(body);
  // Each entry takes at least its length byte.
  uint64_t count = in.varint_max(std::min<uint64_t>(kMaxSites, in.remaining()));
  if (!in.ok())
    return Error("probe table count is malformed or exceeds " + std::to_string(kMaxSites));
  return decode_probe_entries(in, count, 0);
}

void encode_added_sites(std::string& out, const std::vector<ProbeSite>& sites,
                        uint64_t active_since_ns) {
  ByteWriter w(out);
  w.varint(active_since_ns);
  w.varint(sites.size());
  encode_probe_entries(w, sites);
}

Result<std::vector<ProbeSite>> decode_added_sites(std::string_view body, uint32_t first_id,
                                                  uint64_t max_count) {
  ByteCursor in(body);
  uint64_t active_since_ns = in.varint();
  // Each entry takes at least its length byte.
  uint64_t count = in.varint_max(std::min<uint64_t>(max_count, in.remaining()));
  if (!in.ok()) {
    return Error("added probe sites block's count is malformed or exceeds the limit of " +
                 std::to_string(kMaxSites) + " sites");
  }
  // A writer adds at least one site: an empty block is something else (a
  // chunk whose kind was damaged into 7, say).
  if (count == 0) return Error("added probe sites block lists no sites");
  auto sites = decode_probe_entries(in, count, first_id);
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

Result<std::vector<ProbeSite>> decode_probe_entries(ByteCursor& in, uint64_t count,
                                                    uint32_t first_id) {
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
    uint64_t nargs = e.varint_max(kMaxArgs);
    for (uint64_t j = 0; j < nargs && e.ok(); ++j) {
      ArgDescriptor a;
      a.spec = e.str(kMaxString);
      a.size = e.u8();
      uint8_t flags = e.u8();
      a.is_signed = flags & 1;
      a.is_float = flags & 2;
      a.is_string = flags & 4;  // 1.1
      a.is_frame = flags & 8;   // 1.2
      a.is_pointer = flags & 16;  // 1.6; later bits are ignored
      uint8_t location = e.u8();
      uint8_t source = e.u8();
      // Values a newer writer may add become the "unknown" member.
      a.location = location <= 3 ? static_cast<ArgLocation>(location) : ArgLocation::undecodable;
      a.source = source <= 4 ? static_cast<ArgSource>(source) : ArgSource::not_in_sample;
      s.args.push_back(std::move(a));
    }
    // 1.2: argument names. An entry of an older file ends here.
    if (e.ok() && e.remaining() > 0) {
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
    if (!in.ok() || !e.ok()) {
      return Error("probe site " + std::to_string(i) + " is truncated or malformed");
    }
    sites.push_back(std::move(s));
  }
  return sites;
}

}  // namespace

void encode_summary(std::string& out, const TraceSummary& s, size_t table_sites) {
  ByteWriter w(out);
  w.varint(s.end_monotonic_ns);
  w.varint(s.events);
  w.varint(s.lost);
  // The sites of the probe table here, the added ones (1.4) after the drops.
  const size_t events_in_table = std::min(s.events_per_site.size(), table_sites);
  const size_t lost_in_table = std::min(s.lost_per_site.size(), table_sites);
  w.varint(events_in_table);
  for (size_t i = 0; i < events_in_table; ++i) w.varint(s.events_per_site[i]);
  w.varint(lost_in_table);
  for (size_t i = 0; i < lost_in_table; ++i) w.varint(s.lost_per_site[i]);
  // 1.1: appended, so that 1.0 readers still read the fields above.
  w.varint(s.dropped.size());
  for (const auto& [cause, count] : s.dropped) {
    w.str(cause);
    w.varint(count);
  }
  // 1.4: the added sites' counts.
  w.varint(s.events_per_site.size() - events_in_table);
  for (size_t i = events_in_table; i < s.events_per_site.size(); ++i) {
    w.varint(s.events_per_site[i]);
  }
  w.varint(s.lost_per_site.size() - lost_in_table);
  for (size_t i = lost_in_table; i < s.lost_per_site.size(); ++i) w.varint(s.lost_per_site[i]);
  // 1.5: the start of the recording's span.
  w.varint(s.enabled_monotonic_ns);
  // 1.8: when the probes were armed, and the attach's wait for others.
  w.varint(s.armed_monotonic_ns);
  w.varint(s.attach_wait_ns);
}

Result<TraceSummary> decode_summary(std::string_view body, size_t site_count) {
  ByteCursor in(body);
  TraceSummary s;
  s.end_monotonic_ns = in.varint();
  s.events = in.varint();
  s.lost = in.varint();
  for (auto* v : {&s.events_per_site, &s.lost_per_site}) {
    uint64_t n = in.varint_max(std::min<uint64_t>(in.remaining(), kMaxSites));
    if (!in.ok()) break;
    if (n > site_count) return Error("summary lists more sites than the probe table");
    v->reserve(n);
    for (uint64_t i = 0; i < n; ++i) v->push_back(in.varint());
  }
  if (!in.ok()) return Error("summary is truncated or malformed");
  // 1.1: drops by cause. A 1.0 summary ends here; bytes after the fields
  // this reader knows belong to a newer minor version and are ignored.
  if (in.remaining() == 0) return s;
  // Each cause takes at least its name's length byte and its count.
  uint64_t n = in.varint_max(in.remaining() / 2);
  for (uint64_t i = 0; i < n && in.ok(); ++i) {
    std::string cause = in.str(kMaxString);
    uint64_t count = in.varint();
    if (in.ok()) s.dropped.emplace_back(std::move(cause), count);
  }
  if (!in.ok()) return Error("summary's drops by cause are truncated or malformed");
  // 1.4: counts of the added sites, after those of the probe table. A 1.1
  // to 1.3 summary ends here. Counts of sites beyond site_count belong to
  // added probe sites blocks the reader left out (damaged): dropped, as a
  // 1.3 reader drops them all.
  if (in.remaining() == 0) return s;
  for (auto* v : {&s.events_per_site, &s.lost_per_site}) {
    uint64_t n2 = in.varint_max(in.remaining());
    if (!in.ok()) break;
    for (uint64_t i = 0; i < n2 && in.ok(); ++i) {
      uint64_t count = in.varint();
      if (v->size() < site_count) v->push_back(count);
    }
  }
  if (!in.ok()) return Error("summary's counts of added probe sites are truncated or malformed");
  // 1.5: when the recording's span began. A 1.4 summary ends here.
  if (in.remaining() == 0) return s;
  s.enabled_monotonic_ns = in.varint();
  if (!in.ok()) return Error("summary's start of the recording is truncated or malformed");
  // 1.8: when the probes were armed. An earlier summary ends here.
  if (in.remaining() == 0) return s;
  s.armed_monotonic_ns = in.varint();
  s.attach_wait_ns = in.varint();
  if (!in.ok()) return Error("summary's armed time is truncated or malformed");
  return s;
}

void encode_progress(std::string& out, const Progress& progress) {
  ByteWriter w(out);
  w.varint(progress.complete_before_ns);
  w.varint(progress.next_within_ns);
}

Result<Progress> decode_progress(std::string_view body) {
  ByteCursor in(body);
  Progress p;
  p.complete_before_ns = in.varint();
  p.next_within_ns = in.varint();
  if (!in.ok()) return Error("progress block is truncated or malformed");
  return p;
}

void encode_index(std::string& out, const ChunkIndex& index) {
  ByteWriter w(out);
  w.u64(index.summary_offset);
  w.u64(index.chunks.size());
  for (const auto& c : index.chunks) {
    w.u64(c.offset);
    w.u64(c.block_size);
    encode_chunk_header(out, c.header);
  }
  w.u64(index.objects.size());  // 1.3, after what a 1.2 reader reads
  for (uint64_t offset : index.objects) w.u64(offset);
  w.u64(index.added_sites.size());  // 1.4, after what a 1.3 reader reads
  for (uint64_t offset : index.added_sites) w.u64(offset);
}

Result<ChunkIndex> decode_index(std::string_view body) {
  ByteCursor in(body);
  ChunkIndex index;
  index.summary_offset = in.u64();
  uint64_t count = in.u64();
  if (!in.ok() || count > in.remaining() / kIndexEntrySize) {
    return Error("chunk index is truncated");
  }
  index.chunks.reserve(count);
  for (uint64_t i = 0; i < count; ++i) index.chunks.push_back(decode_index_entry(in));
  if (!in.ok()) return Error("chunk index is truncated");
  // 1.3: the object blocks' offsets. An index of 1.2 ends here.
  if (in.remaining() == 0) return index;
  uint64_t objects = in.u64();
  if (!in.ok() || objects > in.remaining() / 8) {
    return Error("chunk index's list of object blocks is truncated");
  }
  index.objects.reserve(objects);
  for (uint64_t i = 0; i < objects; ++i) index.objects.push_back(in.u64());
  // 1.4: the added probe sites blocks' offsets. An index of 1.3 ends here.
  if (in.remaining() == 0) return index;
  uint64_t added = in.u64();
  if (!in.ok() || added > in.remaining() / 8) {
    return Error("chunk index's list of added probe sites blocks is truncated");
  }
  index.added_sites.reserve(added);
  for (uint64_t i = 0; i < added; ++i) index.added_sites.push_back(in.u64());
  return index;
}

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

Result<ObjectTable> decode_object(std::string_view body) {
  ByteCursor in(body);
  ObjectTable o;
  o.build_id = in.str(kMaxString);
  o.path = in.str(kMaxString);
  // Each symbol takes at least three bytes: its delta, size and name length.
  uint64_t n = in.varint_max(std::min<uint64_t>(kMaxObjectSymbols, in.remaining() / 3));
  if (!in.ok()) return Error("object block is truncated or lists too many symbols");
  o.symbols.reserve(n);
  uint64_t offset = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t delta = in.varint();
    if (delta > ~uint64_t{0} - offset) return Error("object block's symbol offsets overflow");
    offset += delta;
    uint64_t size = in.varint();
    std::string name = in.str(kMaxSymbolName);
    if (!in.ok()) return Error("object block's symbols are truncated or malformed");
    o.symbols.push_back(ObjectSymbol{offset, size, std::move(name)});
  }
  // Bytes after the symbols belong to a newer minor version: ignored.
  return o;
}

}  // namespace usdt::format
