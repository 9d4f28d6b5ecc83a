#include "formats/completeness.h"

#include <algorithm>
#include <map>

#include "formats/chunk_loader.h"
#include "formats/reader_state.h"

namespace usdt::format {
namespace {

// The last event time of each CPU in one loaded chunk, merged into last;
// false when the chunk fails part-way (the events before the failure count:
// a reader returned them, in time order, and the rest lie later).
bool add_chunk_events(ChunkDecoder& d, std::map<uint32_t, uint64_t>& last) {
  while (d.has_next()) {
    d.advance();
    if (d.failed()) return false;
    if (d.kind() != RecordKind::event) continue;
    const Event& e = d.event();
    uint64_t& t = last[e.cpu];
    t = std::max(t, e.time_ns);
  }
  return !d.failed();
}

// The CPUs that have events in chunks after the damage, which the intact
// chunks before it do not show: their events may be missing at any time.
void add_later_cpus(ChunkLoader& loader, uint64_t max_held, const std::vector<IndexEntry>& chunks,
                    size_t from, const std::map<uint32_t, uint64_t>& before,
                    std::map<uint32_t, bool>& unknown) {
  for (size_t i = from; i < chunks.size(); ++i) {
    PreparedChunk p = loader.load(chunks[i], max_held);
    if (!p.decoder) continue;
    std::map<uint32_t, uint64_t> seen;
    add_chunk_events(*p.decoder, seen);
    for (const auto& [cpu, t] : seen) {
      if (before.count(cpu) == 0) unknown[cpu] = true;
    }
    loader.recycle(*p.decoder);
  }
}

}  // namespace

Completeness scan_completeness(const ReaderState& st, const std::vector<IndexEntry>& chunks) {
  Completeness out;
  const ReadDiagnostics& diag = st.diag;
  // The first offset at which bytes were skipped: chunks from there on
  // come after a loss.
  uint64_t skipped = UINT64_MAX;
  for (uint64_t at : diag.skipped_at) skipped = std::min(skipped, at);
  ChunkLoadContext ctx;
  ctx.src = st.src.get();
  ctx.site_arg_counts = &st.site_arg_counts;
  ctx.site_string_masks = &st.site_string_masks;
  ctx.site_frames = &st.site_frames;
  ctx.max_chunk_payload = st.options.max_chunk_payload;
  // One chunk at a time, within the reader's budget: what the reading
  // itself held is given back by now.
  const uint64_t max_held = st.budget.limit();
  ctx.kept_buffers = loader_buffers(max_held);
  ChunkLoader loader(ctx);
  std::map<uint32_t, uint64_t> last;  // cpu -> its last event time before the damage
  size_t after = chunks.size();       // the first chunk after the damage
  bool damaged = false;               // a chunk failed, or bytes were skipped
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (chunks[i].offset > skipped) {
      after = i;
      damaged = true;
      out.damage_offset = skipped;
      break;
    }
    PreparedChunk p = loader.load(chunks[i], max_held);
    const bool intact = p.decoder && add_chunk_events(*p.decoder, last);
    if (p.decoder) loader.recycle(*p.decoder);
    if (!intact) {
      after = i + 1;  // its events before the failure count (add_chunk_events)
      damaged = true;
      out.damage_offset = chunks[i].offset;
      break;
    }
  }
  // Bytes skipped after the last chunk found may have held one (its frame
  // damaged): a loss all the same.
  if (!damaged && skipped != UINT64_MAX) {
    damaged = true;
    out.damage_offset = skipped;
  }
  if (!damaged && !diag.truncated) return out;
  out.complete = false;
  if (!damaged) {
    out.damage_offset = chunks.empty() ? 0 : chunks.back().offset + chunks.back().block_size;
  }
  std::map<uint32_t, bool> unknown;
  add_later_cpus(loader, max_held, chunks, after, last, unknown);
  // The recording's CPUs (1.6): one without an event before the damage may
  // have had some in the lost part, at any time.
  for (uint32_t cpu : st.metadata.cpus) {
    if (last.count(cpu) == 0) unknown[cpu] = true;
  }
  for (const auto& [cpu, t] : last) out.cpus.push_back({cpu, t});
  for (const auto& [cpu, yes] : unknown) out.cpus.push_back({cpu, std::nullopt});
  std::sort(out.cpus.begin(), out.cpus.end(),
            [](const CpuCompleteness& a, const CpuCompleteness& b) { return a.cpu < b.cpu; });
  if (!last.empty()) {
    uint64_t t = UINT64_MAX;
    for (const auto& [cpu, time] : last) t = std::min(t, time);
    out.incomplete_after_ns = t;
  }
  return out;
}

}  // namespace usdt::format
