#include "record/kernel/sample_decoder.h"

#include <algorithm>
#include <cstring>

#include "formats/byte_cursor.h"
#include "record/kernel/sample_trailer.h"

namespace usdt::record {

SampleDecoder::SampleDecoder(std::vector<SiteDecoding> sites, bool identifier)
    : identifier_(identifier), trailer_bytes_(identifier ? 32 : 24) {
  sites_.reserve(sites.size());
  for (SiteDecoding& d : sites) add_site(std::move(d));
}

std::optional<uint64_t> SampleDecoder::record_time(const perf_event_header* record) const {
  if (record->size < sizeof *record) return std::nullopt;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(record) + sizeof *record;
  const size_t size = record->size - sizeof *record;
  if (record->type == PERF_RECORD_SAMPLE) {
    // [identifier] pid, tid, time: the layout decode_sample() reads.
    const size_t at = (identifier_ ? 8 : 0) + 8;
    if (size < at + 8) return std::nullopt;
    uint64_t time;
    std::memcpy(&time, p + at, sizeof time);
    return time;
  }
  Trailer t;
  if (!read_trailer(p, size, trailer_bytes_, t)) return std::nullopt;
  return t.time;
}

void SampleDecoder::add_site(SiteDecoding d) {
  Site site;
  site.regs.set_layout(d.regs_mask);
  site.regs_bytes = 8 * static_cast<size_t>(__builtin_popcountll(d.regs_mask));
  site.sp_reg = d.arch == Arch::x86_64 ? x86_reg::sp : arm64_reg::sp;
  stack_misses_.emplace_back(d.args.size(), 0);
  // pid, tid, time, cpu, res, then the abi word and the registers.
  constexpr uint32_t kRegsAt = 4 + 4 + 8 + 4 + 4 + 8;
  site.registers_only = !d.period && !d.callchain && !d.raw && d.stack_bytes == 0 &&
                        d.regs_mask != 0 && d.args.size() <= format::kMaxArgs &&
                        d.sources.size() == d.args.size();
  for (size_t i = 0; site.registers_only && i < d.args.size(); ++i) {
    const ArgSpec& spec = d.args[i];
    const bool sampled = d.sources[i] == ArgSource::sampled_register && spec.reg >= 0 &&
                         spec.reg < 64 && (d.regs_mask >> spec.reg & 1) != 0 &&
                         (spec.size == 1 || spec.size == 2 || spec.size == 4 || spec.size == 8);
    if (!sampled) {
      site.registers_only = false;
      break;
    }
    const uint64_t below = d.regs_mask & ((uint64_t{1} << spec.reg) - 1);
    const unsigned bits = 8u * spec.size;
    const bool sign = spec.is_signed && !spec.is_float;
    site.register_args[i] =
        RegisterArg{kRegsAt + 8 * static_cast<uint32_t>(__builtin_popcountll(below)),
                    spec.reg_shift, static_cast<uint8_t>(sign ? 64 - bits : 0),
                    bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1};
  }
  site.arg_count = static_cast<uint8_t>(std::min<size_t>(d.args.size(), format::kMaxArgs));
  site.decoding = std::move(d);
  sites_.push_back(std::move(site));
}

void SampleDecoder::set_raw_layout(uint32_t site_id, std::vector<RawArg> raw_args) {
  if (site_id < sites_.size()) sites_[site_id].decoding.raw_args = std::move(raw_args);
}

void SampleDecoder::add_event(uint64_t kernel_id, uint32_t site_id) {
  site_by_id_[kernel_id] = site_id;
}

SampleDecoder::Site* SampleDecoder::site_of(uint64_t kernel_id) {
  // Consecutive samples mostly come from one site: skip the hash lookup.
  if (kernel_id != last_id_) {
    auto it = site_by_id_.find(kernel_id);
    if (it == site_by_id_.end()) return nullptr;
    last_id_ = kernel_id;
    last_site_ = it->second;
  }
  if (last_site_ >= sites_.size()) return nullptr;
  return &sites_[last_site_];
}

void SampleDecoder::note_new_cpu_time(uint32_t cpu, uint64_t time) {
  if (cpu >= 4096) return;
  last_time_by_cpu_.resize(cpu + 1, 0);
  last_time_by_cpu_[cpu] = time;
}

SampleDecoder::Kind SampleDecoder::decode(const perf_event_header* record) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(record) + sizeof(perf_event_header);
  size_t size = record->size - sizeof(perf_event_header);
  switch (record->type) {
    case PERF_RECORD_SAMPLE:
      return decode_sample(p, size);
    case PERF_RECORD_LOST:
      return decode_lost(p, size, false);
    case PERF_RECORD_LOST_SAMPLES:
      return decode_lost(p, size, true);
    case PERF_RECORD_COMM:
      return decode_comm(p, size, record->misc);
    case PERF_RECORD_FORK:
      return decode_task(p, size, false);
    case PERF_RECORD_EXIT:
      return decode_task(p, size, true);
    case PERF_RECORD_MMAP2:
      return decode_mmap2(p, size, record->misc);
    case PERF_RECORD_NAMESPACES:
      return decode_namespaces(p, size);
    default:
      ++ignored_;
      return Kind::none;
  }
}

SampleDecoder::Kind SampleDecoder::decode_sample(const uint8_t* p, size_t size) {
  format::ByteCursor c(p, size);
  const uint64_t id = identifier_ ? c.u64() : 0;
  const bool has_id = c.ok();
  Site* site = nullptr;
  if (has_id && identifier_) {
    site = site_of(id);
  } else if (has_id && sites_.size() == 1) {
    site = &sites_[0];
    last_site_ = 0;
  }
  // The usual site first, before the general path's resets.
  if (site != nullptr && site->registers_only) return decode_registers_only(*site, c.position(), c.remaining());
  sample_regs_ = &no_regs_;
  sample_stack_ = StackDump();
  sample_callchain_ = Callchain();
  sample_caller_repair_ = &no_repair_;
  if (!has_id) return ++malformed_, Kind::none;
  if (site == nullptr) return ++unknown_ids_, Kind::none;
  RawData raw;
  if (!read_sample_fields(c, *site, &raw)) return ++malformed_, Kind::none;
  note_time(event_.cpu, event_.time_ns);
  decode_args(*site, raw);
  return Kind::event;
}

bool SampleDecoder::read_sample_fields(format::ByteCursor& c, Site& site, RawData* raw) {
  const SiteDecoding& d = site.decoding;
  format::Event& e = event_;
  e.pid = c.u32();
  e.tid = c.u32();
  e.time_ns = c.u64();
  e.cpu = c.u32();
  c.u32();  // res
  e.site_id = d.site_id;
  if (d.period) c.u64();
  if (d.callchain) {
    const uint64_t nr = c.u64();
    if (!c.ok() || nr > c.remaining() / 8) return false;
    sample_callchain_.entries = c.position();
    sample_callchain_.nr = nr;
    c.skip(8 * nr);
  }
  if (d.raw) {
    raw->size = c.u32();
    raw->data = c.position();
    c.skip(raw->size);
  }
  // The register layout is per site; only the values change per sample.
  SampledRegs& regs = site.regs;
  regs.set_values(nullptr, false);
  if (d.regs_mask != 0 && c.u64() != PERF_SAMPLE_REGS_ABI_NONE && c.ok()) {
    const uint8_t* values = c.position();
    c.skip(site.regs_bytes);
    regs.set_values(values, true);
  }
  StackDump stack;
  if (d.stack_bytes != 0) {
    const uint64_t dump_size = c.u64();
    if (dump_size != 0 && c.ok()) {
      stack.data = c.position();
      c.skip(dump_size);
      const uint64_t dyn_size = c.u64();
      stack.size = dyn_size < dump_size ? dyn_size : dump_size;
    }
  }
  if (!c.ok()) return false;
  sample_regs_ = &regs;
  sample_stack_ = stack;
  if (d.callchain) sample_caller_repair_ = &d.caller_repair;
  return true;
}

void SampleDecoder::decode_args(Site& site, const RawData& raw) {
  const SiteDecoding& d = site.decoding;
  const SampledRegs& regs = site.regs;
  format::Event& e = event_;
  const size_t n = d.args.size() < format::kMaxArgs ? d.args.size() : format::kMaxArgs;
  e.arg_count = static_cast<uint8_t>(n);
  e.missing_mask = 0;
  e.string_mask = 0;
  for (size_t i = 0; i < n; ++i) {
    std::optional<uint64_t> v;
    if (d.sources[i] == ArgSource::kernel_read) {
      if (i < d.raw_args.size()) {
        const RawArg& r = d.raw_args[i];
        if (r.is_string_arg()) e.string_mask |= static_cast<uint16_t>(1u << i);
        if (raw.data != nullptr) {
          v = decode_raw_arg(d.args[i], r, raw.data, raw.size, d.string_bytes, &strings_[i], &hex_texts_[i]);
        }
      }
    } else if (d.sources[i] == ArgSource::sampled_register) {
      // The common case, without the call: the same as decode_arg's.
      const ArgSpec& spec = d.args[i];
      v = regs.get(spec.reg);
      if (v) *v = extend_arg(*v >> spec.reg_shift, spec.size, spec.is_signed && !spec.is_float);
    } else {
      v = decode_arg(d.args[i], d.sources[i], regs, sample_stack_, site.sp_reg);
    }
    if (v) {
      e.args[i] = *v;
    } else {
      e.args[i] = 0;
      e.missing_mask |= static_cast<uint16_t>(1u << i);
      if (d.sources[i] == ArgSource::sampled_stack) ++stack_misses_[last_site_][i];
    }
  }
  // Arguments past the site's count are zero; only a previous event of a
  // site with more arguments can have left any behind.
  for (size_t i = n; i < cleared_from_; ++i) e.args[i] = 0;
  cleared_from_ = n;
}

// decode_sample() for a registers-only site: the same event, without the
// checks per field and per argument that its fixed layout makes needless.
SampleDecoder::Kind SampleDecoder::decode_registers_only(Site& site, const uint8_t* p,
                                                         size_t size) {
  const size_t n = site.arg_count;
  constexpr size_t kAbiAt = 4 + 4 + 8 + 4 + 4;
  if (size < kAbiAt + 8) return ++malformed_, Kind::none;
  format::Event& e = event_;
  std::memcpy(&e.pid, p, 4);
  std::memcpy(&e.tid, p + 4, 4);
  std::memcpy(&e.time_ns, p + 8, 8);
  std::memcpy(&e.cpu, p + 16, 4);
  e.site_id = site.decoding.site_id;
  uint64_t abi;
  std::memcpy(&abi, p + kAbiAt, 8);
  SampledRegs& regs = site.regs;
  const bool present = abi != PERF_SAMPLE_REGS_ABI_NONE;
  if (present && size < kAbiAt + 8 + site.regs_bytes) return ++malformed_, Kind::none;
  regs.set_values(present ? p + kAbiAt + 8 : nullptr, present);
  sample_regs_ = &regs;
  sample_stack_ = StackDump();
  sample_callchain_ = Callchain();
  sample_caller_repair_ = &no_repair_;
  note_time(e.cpu, e.time_ns);

  e.arg_count = static_cast<uint8_t>(n);
  e.missing_mask = 0;
  e.string_mask = 0;
  if (present) {
    for (size_t i = 0; i < n; ++i) {
      const RegisterArg& a = site.register_args[i];
      uint64_t v;
      std::memcpy(&v, p + a.offset, 8);
      v = ((v >> a.shift) & a.mask) << a.sign_shift;
      e.args[i] = static_cast<uint64_t>(static_cast<int64_t>(v) >> a.sign_shift);
    }
  } else {
    // No user registers (the hit was in a kernel thread): every argument missing.
    for (size_t i = 0; i < n; ++i) e.args[i] = 0;
    e.missing_mask = static_cast<uint16_t>((1u << n) - 1);
  }
  for (size_t i = n; i < cleared_from_; ++i) e.args[i] = 0;
  cleared_from_ = n;
  return Kind::event;
}

}  // namespace usdt::record
