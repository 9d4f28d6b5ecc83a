#include <string>

#include "formats/trace_writer.h"
#include "formats/trace_writer_impl.h"

namespace usdt::format {

// The object block goes out now, while the chunk that will hold stacks in
// this object is still buffered: a reader then finds the block before the
// chunk (FORMAT.md 3.6a), and a recording cut short keeps both or neither.
Status TraceWriter::add_object(const ObjectTable& object) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (object.symbols.size() > kMaxObjectSymbols) {
    return Error("cannot write the symbols of '" + object.path +
                 "': " + std::to_string(object.symbols.size()) +
                 " symbols exceed the format's limit of " + std::to_string(kMaxObjectSymbols));
  }
  std::string body;
  encode_object(body, object);
  if (body.size() > kMaxTablePayload) {
    return Error("cannot write the symbols of '" + object.path +
                 "': " + std::to_string(body.size()) + " bytes exceed the format's limit of " +
                 std::to_string(kMaxTablePayload));
  }
  if (Status s = w.encode(BlockKind::object, {}, body); !s) return s;
  if (!w.room_for(w.block.size() + 8, 0)) {
    return Error("no room for the symbols of '" + object.path + "' within " +
                 std::to_string(w.options.max_bytes) + " bytes");
  }
  uint64_t at = w.offset;
  if (Status s = w.put(w.block); !s) return s;
  w.index.objects.push_back(at);
  return Status::success();
}

// Like add_object: the block goes out now, before the chunk still buffered,
// so every chunk that can hold events of these sites follows it (FORMAT.md
// 3.4.2), and a recording cut short keeps the block with its chunks.
Status TraceWriter::add_sites(const std::vector<ProbeSite>& sites, uint64_t active_since_ns) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (sites.empty()) return Status::success();
  const size_t known = w.site_arg_counts.size();
  if (std::string bad = bad_sites(sites, static_cast<uint32_t>(known), known); !bad.empty()) {
    return Error("cannot add probe sites to '" + w.path + "': " + bad);
  }
  std::string body;
  encode_added_sites(body, sites, active_since_ns);
  if (body.size() > kMaxTablePayload) {
    return Error("cannot add probe sites to '" + w.path + "': " + std::to_string(body.size()) +
                 " bytes exceed the format's limit of " + std::to_string(kMaxTablePayload));
  }
  if (Status s = w.encode(BlockKind::added_sites, {}, body); !s) return s;
  if (w.full || !w.room_for(w.block.size() + 8, 0)) {
    w.full = true;  // their events, and every later one, are refused
  } else {
    uint64_t at = w.offset;
    if (Status s = w.put(w.block); !s) return s;
    w.index.added_sites.push_back(at);
  }
  for (const ProbeSite& site : sites) {
    w.site_arg_counts.push_back(static_cast<uint8_t>(site.args.size()));
    w.site_string_masks.push_back(string_mask_of(site));
  }
  w.tally.add_sites(sites.size());
  return Status::success();
}

Status TraceWriter::append_chunk_block(std::string_view block, const ChunkHeader& header,
                                       const SiteCounts& counts) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (!w.tally.fits(counts)) {
    return Error("cannot copy a chunk into '" + w.path + "': it holds events of probe sites " +
                 "the file does not have");
  }
  if (Status s = w.flush(); !s) return s;
  if (w.full || !w.room_for(block.size(), 1)) {
    w.full = true;
    w.events_refused += header.events;
    return Status::success();
  }
  const uint64_t at = w.offset;
  if (Status s = w.put(block, &header, &counts); !s) return s;
  w.index.chunks.push_back(IndexEntry{at, w.offset - at, header});
  w.events_written += header.events;
  w.tally.add(counts);
  return Status::success();
}

Status TraceWriter::finish(const TraceSummary& summary) {
  Impl& w = *impl_;
  if (Status s = w.usable(); !s) return s;
  if (Status s = w.flush(); !s) return s;
  std::string body;
  encode_summary(body, summary, w.table_sites);
  w.index.summary_offset = w.offset;
  if (Status s = w.write_block(BlockKind::summary, {}, body); !s) return s;
  body.clear();
  encode_index(body, w.index);
  uint64_t index_offset = w.offset;
  if (Status s = w.write_block(BlockKind::index, {}, body); !s) return s;
  std::string trailer;
  encode_trailer(trailer, Trailer{index_offset, w.offset - index_offset});
  if (Status s = w.put(trailer); !s) return s;
  w.finished = true;
  if (Status s = w.out->close(); !s) return w.fail(s.error());
  return Status::success();
}

uint64_t TraceWriter::bytes_written() const { return impl_->offset; }
uint64_t TraceWriter::events_written() const { return impl_->events_written; }
const std::vector<uint64_t>& TraceWriter::events_per_site() const { return impl_->tally.events(); }
const std::vector<uint64_t>& TraceWriter::lost_per_site() const { return impl_->tally.lost(); }
uint64_t TraceWriter::lost_written() const { return impl_->tally.lost_total(); }
uint64_t TraceWriter::pending_records() const { return impl_->builder.records(); }
bool TraceWriter::full() const { return impl_->full; }
uint64_t TraceWriter::events_refused() const { return impl_->events_refused; }

}  // namespace usdt::format
