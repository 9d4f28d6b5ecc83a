// SampleDecoder's side-band records (record/kernel/sample_decoder.h): lost
// events and samples, comm, fork and exit, and executable mappings, each
// read through a bounds-checked cursor and counted as malformed when it
// does not fit its size.
#include <algorithm>
#include <cstring>

#include "formats/byte_cursor.h"
#include "record/kernel/sample_decoder.h"
#include "record/kernel/sample_trailer.h"

namespace usdt::record {

SampleDecoder::Kind SampleDecoder::decode_lost(const uint8_t* p, size_t size, bool samples_only) {
  format::ByteCursor c(p, size);
  uint64_t id = samples_only ? 0 : c.u64();
  const uint64_t count = c.u64();
  if (!c.ok()) return ++malformed_, Kind::none;
  Trailer t;
  if (!read_trailer(p, size, trailer_bytes_, t)) return ++malformed_, Kind::none;
  if (samples_only) id = t.id;
  lost_ = format::LostEvent();
  lost_.cpu = t.cpu;
  lost_.count = count;
  lost_.time_end_ns = t.time;
  lost_.time_begin_ns = t.cpu < last_time_by_cpu_.size() ? last_time_by_cpu_[t.cpu] : 0;
  if (lost_.time_begin_ns == 0 || lost_.time_begin_ns > t.time) lost_.time_begin_ns = t.time;
  if (samples_only) {
    // LOST_SAMPLES names the event that lost them.
    auto it = site_by_id_.find(id);
    lost_.site_id = it == site_by_id_.end() ? format::kNoSite : it->second;
    // Without identifiers, lost samples can only be the one site's.
    if (!identifier_ && sites_.size() == 1) lost_.site_id = sites_[0].decoding.site_id;
  } else {
    // A full ring: the kernel counts what every event writing there lost
    // and reports it with the id of the event that writes next, which need
    // not be one that lost anything. Only with one site are they its.
    lost_.site_id = sites_.size() == 1 ? sites_[0].decoding.site_id : format::kNoSite;
  }
  note_time(t.cpu, t.time);
  return Kind::lost;
}

SampleDecoder::Kind SampleDecoder::decode_comm(const uint8_t* p, size_t size, uint16_t misc) {
  format::ByteCursor c(p, size);
  const uint32_t pid = c.u32();
  const uint32_t tid = c.u32();
  if (!c.ok() || size < 8 + trailer_bytes_) return ++malformed_, Kind::none;
  Trailer t;
  read_trailer(p, size, trailer_bytes_, t);
  const char* name = reinterpret_cast<const char*>(c.position());
  size_t max = size - 8 - trailer_bytes_;
  process_ = format::ProcessEvent();
  process_.kind = (misc & PERF_RECORD_MISC_COMM_EXEC) ? format::ProcessEventKind::exec
                                                      : format::ProcessEventKind::comm;
  process_.pid = pid;
  process_.tid = tid;
  process_.time_ns = t.time;
  process_.comm.assign(name, strnlen(name, max));
  return Kind::process;
}

SampleDecoder::Kind SampleDecoder::decode_task(const uint8_t* p, size_t size, bool is_exit) {
  format::ByteCursor c(p, size);
  const uint32_t pid = c.u32();
  const uint32_t ppid = c.u32();
  const uint32_t tid = c.u32();
  const uint32_t ptid = c.u32();
  const uint64_t time = c.u64();
  if (!c.ok()) return ++malformed_, Kind::none;
  process_ = format::ProcessEvent();
  process_.kind = is_exit ? format::ProcessEventKind::exit : format::ProcessEventKind::fork;
  process_.pid = pid;
  process_.tid = tid;
  process_.time_ns = time;
  if (!is_exit) {
    process_.parent_pid = ppid;
    process_.parent_tid = ptid;
  }
  return Kind::process;
}

// PERF_RECORD_NAMESPACES: pid, tid, nr_namespaces, then that many (dev,
// inode) pairs indexed as the kernel's enum (PID_NS_INDEX 3, after net, uts,
// ipc), the sample_id trailer.
SampleDecoder::Kind SampleDecoder::decode_namespaces(const uint8_t* p, size_t size) {
  constexpr uint64_t kPidNamespaceIndex = 3;
  format::ByteCursor c(p, size);
  const uint32_t pid = c.u32();
  const uint32_t tid = c.u32();
  const uint64_t count = c.u64();
  if (!c.ok() || count <= kPidNamespaceIndex || count > (size - 16) / 16) {
    return ++malformed_, Kind::none;
  }
  c.skip(kPidNamespaceIndex * 16 + 8);  // to the PID namespace's inode
  const uint64_t inode = c.u64();
  Trailer t;
  if (!c.ok() || !read_trailer(p, size, trailer_bytes_, t)) return ++malformed_, Kind::none;
  process_ = format::ProcessEvent();
  process_.kind = format::ProcessEventKind::pid_namespace;
  process_.pid = pid;
  process_.tid = tid;
  process_.time_ns = t.time;
  process_.pid_namespace = inode;
  return Kind::process;
}

// PERF_RECORD_MMAP2: pid, tid, addr, len, pgoff, then either maj, min, ino,
// ino_generation or (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) build_id_size,
// 3 reserved bytes and a 20-byte build-id; prot, flags, the NUL-padded file
// name, the sample_id trailer. Only executable mappings become events.
SampleDecoder::Kind SampleDecoder::decode_mmap2(const uint8_t* p, size_t size, uint16_t misc) {
  format::ByteCursor c(p, size);
  const uint32_t pid = c.u32();
  const uint32_t tid = c.u32();
  const uint64_t addr = c.u64();
  const uint64_t len = c.u64();
  const uint64_t pgoff = c.u64();
  const uint8_t* id = c.position();
  c.skip(24);
  const uint32_t prot = c.u32();
  c.u32();  // flags
  if (!c.ok() || size < 56 + trailer_bytes_) return ++malformed_, Kind::none;
  if ((prot & 0x4) == 0) return ++ignored_, Kind::none;  // PROT_EXEC
  Trailer t;
  read_trailer(p, size, trailer_bytes_, t);
  const char* name = reinterpret_cast<const char*>(c.position());
  size_t max = size - 56 - trailer_bytes_;
  process_ = format::ProcessEvent();
  process_.kind = format::ProcessEventKind::mmap;
  process_.pid = pid;
  process_.tid = tid;
  process_.time_ns = t.time;
  process_.map_address = addr;
  process_.map_length = len;
  process_.map_file_offset = pgoff;
  process_.path.assign(name, strnlen(name, max));
  if ((misc & PERF_RECORD_MISC_MMAP_BUILD_ID) != 0) {
    static const char kDigits[] = "0123456789abcdef";
    size_t n = std::min<size_t>(id[0], 20);
    for (size_t i = 0; i < n; ++i) {
      process_.build_id += kDigits[id[4 + i] >> 4];
      process_.build_id += kDigits[id[4 + i] & 15];
    }
  }
  return Kind::process;
}

}  // namespace usdt::record
