// The footer's bodies (formats/FORMAT.md 3.6 and 3.7): the summary and the
// chunk index, declared in formats/table_codec.h with the other tables.
#include <algorithm>

#include "formats/table_codec.h"

namespace usdt::format {

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

namespace {

// 1.1: the drops by cause, each at least its name's length byte and its count.
Status decode_drops(ByteCursor& in, TraceSummary& s, BudgetHold& hold, ReadBudget* budget) {
  const uint64_t n = in.varint_max(in.remaining() / 2);
  using Drop = std::pair<std::string, uint64_t>;
  if (!hold.take_array(n, sizeof(Drop))) {
    return Error("decoding the summary's " + std::to_string(n) + " drop causes " +
                 over_budget_text(n * sizeof(Drop), budget));
  }
  s.dropped.reserve(n);
  for (uint64_t i = 0; i < n && in.ok(); ++i) {
    std::string cause = in.str(kMaxString);
    uint64_t count = in.varint();
    if (!hold.take(heap_bytes(cause))) {
      return Error("decoding the summary's drop causes " +
                   over_budget_text(hold.held() + heap_bytes(cause), budget));
    }
    if (in.ok()) s.dropped.emplace_back(std::move(cause), count);
  }
  if (!in.ok()) return Error("summary's drops by cause are truncated or malformed");
  return Status::success();
}

// 1.4: counts of the added sites, after those of the probe table, appended
// to the lists up to site_count entries. Counts of sites beyond it belong to
// added probe sites blocks the reader left out (damaged): dropped, as a 1.3
// reader drops them all.
Status decode_added_counts(ByteCursor& in, TraceSummary& s, size_t site_count, BudgetHold& hold,
                           ReadBudget* budget) {
  for (auto* v : {&s.events_per_site, &s.lost_per_site}) {
    uint64_t n2 = in.varint_max(in.remaining());
    if (!in.ok()) break;
    // Twice: the list grows by doubling.
    const uint64_t kept = std::min<uint64_t>(n2, site_count - std::min(site_count, v->size()));
    if (!hold.take_array(2 * kept, sizeof(uint64_t))) {
      return Error("decoding the summary's counts of added probe sites " +
                   over_budget_text(2 * kept * sizeof(uint64_t), budget));
    }
    for (uint64_t i = 0; i < n2 && in.ok(); ++i) {
      uint64_t count = in.varint();
      if (v->size() < site_count) v->push_back(count);
    }
  }
  if (!in.ok()) return Error("summary's counts of added probe sites are truncated or malformed");
  return Status::success();
}

}  // namespace

Result<TraceSummary> decode_summary(std::string_view body, size_t site_count, ReadBudget* budget) {
  ByteCursor in(body);
  BudgetHold hold(budget);
  TraceSummary s;
  s.end_monotonic_ns = in.varint();
  s.events = in.varint();
  s.lost = in.varint();
  for (auto* v : {&s.events_per_site, &s.lost_per_site}) {
    uint64_t n = in.varint_max(std::min<uint64_t>(in.remaining(), kMaxSites));
    if (!in.ok()) break;
    if (n > site_count) return Error("summary lists more sites than the probe table");
    if (!hold.take_array(n, sizeof(uint64_t))) {
      return Error("decoding the summary's counts per site " +
                   over_budget_text(n * sizeof(uint64_t), budget));
    }
    v->reserve(n);
    for (uint64_t i = 0; i < n; ++i) v->push_back(in.varint());
  }
  if (!in.ok()) return Error("summary is truncated or malformed");
  // 1.1: drops by cause. A 1.0 summary ends here; bytes after the fields
  // this reader knows belong to a newer minor version and are ignored.
  if (in.remaining() != 0) {
    if (Status d = decode_drops(in, s, hold, budget); !d) return d.error();
  }
  // A 1.1 to 1.3 summary ends here.
  if (in.remaining() != 0) {
    if (Status d = decode_added_counts(in, s, site_count, hold, budget); !d) return d.error();
  }
  // 1.5: when the recording's span began. A 1.4 summary ends here.
  if (in.remaining() != 0) {
    s.enabled_monotonic_ns = in.varint();
    if (!in.ok()) return Error("summary's start of the recording is truncated or malformed");
  }
  // 1.8: when the probes were armed. An earlier summary ends here.
  if (in.remaining() != 0) {
    s.armed_monotonic_ns = in.varint();
    s.attach_wait_ns = in.varint();
    if (!in.ok()) return Error("summary's armed time is truncated or malformed");
  }
  hold.keep();
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

namespace {

// A u64 count then that many u64 offsets (the index's appendices): false,
// with what went wrong in why, when they run past the body or the budget.
bool decode_offsets(ByteCursor& in, std::vector<uint64_t>& out, BudgetHold& hold,
                    ReadBudget* budget, std::string& why) {
  uint64_t n = in.u64();
  if (!in.ok() || n > in.remaining() / 8) return false;
  if (!hold.take_array(n, sizeof(uint64_t))) {
    why = "decoding its " + std::to_string(n) + " offsets " +
          over_budget_text(n * sizeof(uint64_t), budget);
    return false;
  }
  out.reserve(n);
  for (uint64_t i = 0; i < n; ++i) out.push_back(in.u64());
  return true;
}

}  // namespace

Result<ChunkIndex> decode_index(std::string_view body, ReadBudget* budget) {
  ByteCursor in(body);
  BudgetHold hold(budget);
  ChunkIndex index;
  index.summary_offset = in.u64();
  uint64_t count = in.u64();
  if (!in.ok() || count > in.remaining() / kIndexEntrySize) {
    return Error("chunk index is truncated");
  }
  if (!hold.take_array(count, sizeof(IndexEntry))) {
    return Error("decoding the chunk index's " + std::to_string(count) + " entries " +
                 over_budget_text(count * sizeof(IndexEntry), budget));
  }
  index.chunks.reserve(count);
  for (uint64_t i = 0; i < count; ++i) index.chunks.push_back(decode_index_entry(in));
  if (!in.ok()) return Error("chunk index is truncated");
  std::string why;
  // 1.3: the object blocks' offsets. An index of 1.2 ends here.
  if (in.remaining() != 0 && !decode_offsets(in, index.objects, hold, budget, why)) {
    return Error(why.empty() ? "chunk index's list of object blocks is truncated"
                             : "chunk index's list of object blocks: " + why);
  }
  // 1.4: the added probe sites blocks' offsets. An index of 1.3 ends here.
  if (in.remaining() != 0 && !decode_offsets(in, index.added_sites, hold, budget, why)) {
    return Error(why.empty() ? "chunk index's list of added probe sites blocks is truncated"
                             : "chunk index's list of added probe sites blocks: " + why);
  }
  index.budget_bytes = hold.keep();
  return index;
}

}  // namespace usdt::format
