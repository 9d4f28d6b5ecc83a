#include "report/symbols/stack_symbolizer.h"

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "common/demangle.h"

namespace usdt::report {

namespace {

// MappingSet::generation: shared by the symbolizers of parallel segments.
std::atomic<uint64_t> next_generation{1};

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos || slash + 1 == path.size()) return path;
  return path.substr(slash + 1);
}

}  // namespace

const std::string& FrameSymbol::label() const {
  if (!has_symbol) return function;
  if (label_cache_.empty()) label_cache_ = function + "+" + hex(symbol_offset);
  return label_cache_;
}

const MappingSet::Mapping* MappingSet::find(uint64_t address) const {
  auto it = std::upper_bound(mappings.begin(), mappings.end(), address,
                             [](uint64_t a, const Mapping& m) { return a < m.start; });
  if (it == mappings.begin()) return nullptr;
  --it;
  return address < it->end ? &*it : nullptr;
}

StackSymbolizer::StackSymbolizer(const std::vector<TraceFileInfo>& files)
    : files_(files), objects_(files.size()), current_(files.size()) {
  for (size_t f = 0; f < files.size(); ++f) {
    const std::vector<format::ObjectTable>& objects = files[f].objects();
    // Two blocks with the same key: the first wins (FORMAT.md 3.6a).
    for (size_t i = 0; i < objects.size(); ++i) {
      if (!objects[i].build_id.empty())
        objects_[f].by_build_id.emplace(objects[i].build_id, static_cast<int32_t>(i));
    }
    // Path lookups are for mmap events without a build-id: a block without
    // one is the exact match, a block with one is the same file read by the
    // recorder when the kernel gave no build-id.
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < objects.size(); ++i) {
        if (objects[i].build_id.empty() == (pass == 0) && !objects[i].path.empty()) {
          objects_[f].by_path.emplace(objects[i].path, static_cast<int32_t>(i));
        }
      }
    }
  }
}

StackSymbolizer::StackSymbolizer(const StackSymbolizer& other)
    : files_(other.files_),
      objects_(other.objects_),
      current_(other.current_),
      paths_(other.paths_),
      path_index_(other.path_index_) {}

int32_t StackSymbolizer::object_for(uint32_t file, const format::ProcessEvent& p) const {
  const FileObjects& fo = objects_[file];
  if (!p.build_id.empty()) {
    // A build-id names one file: another file at the same path is not it.
    auto it = fo.by_build_id.find(p.build_id);
    return it != fo.by_build_id.end() ? it->second : -1;
  }
  auto it = fo.by_path.find(p.path);
  return it != fo.by_path.end() ? it->second : -1;
}

uint32_t StackSymbolizer::intern_path(const std::string& path) {
  auto [it, added] = path_index_.emplace(path, static_cast<uint32_t>(paths_.size()));
  if (added) paths_.push_back(path);
  return it->second;
}

void StackSymbolizer::on_process(uint32_t file, const format::ProcessEvent& p) {
  last_valid_ = false;
  if (file >= current_.size()) return;
  auto& procs = current_[file];
  switch (p.kind) {
    case format::ProcessEventKind::exec:
      procs.erase(p.pid);
      break;
    case format::ProcessEventKind::fork:
      // A new process (not a thread): it starts with its parent's mappings,
      // which are immutable, so both share the set until one changes.
      if (p.tid == p.pid && p.parent_pid != p.pid) {
        auto parent = procs.find(p.parent_pid);
        if (parent != procs.end()) {
          procs[p.pid] = parent->second;
        } else {
          procs.erase(p.pid);
        }
      }
      break;
    case format::ProcessEventKind::mmap: {
      if (p.map_length == 0) break;
      const uint64_t start = p.map_address;
      const uint64_t end =
          p.map_address + p.map_length < start ? UINT64_MAX : p.map_address + p.map_length;
      auto next = std::make_shared<MappingSet>();
      next->generation = next_generation++;
      next->file = file;
      auto old = procs.find(p.pid);
      if (old != procs.end() && old->second) {
        // Keep what the new mapping does not cover; cut the ones it overlaps.
        for (const MappingSet::Mapping& m : old->second->mappings) {
          if (m.end <= start || m.start >= end) {
            next->mappings.push_back(m);
            continue;
          }
          if (m.start < start) {
            MappingSet::Mapping left = m;
            left.end = start;
            next->mappings.push_back(left);
          }
          if (m.end > end) {
            MappingSet::Mapping right = m;
            right.file_offset += end - m.start;
            right.start = end;
            next->mappings.push_back(right);
          }
        }
      }
      MappingSet::Mapping m;
      m.start = start;
      m.end = end;
      m.file_offset = p.map_file_offset;
      m.path = intern_path(p.path);
      m.object = object_for(file, p);
      next->mappings.push_back(m);
      std::sort(next->mappings.begin(), next->mappings.end(),
                [](const MappingSet::Mapping& a, const MappingSet::Mapping& b) {
                  return a.start < b.start;
                });
      procs[p.pid] = std::move(next);
      break;
    }
    case format::ProcessEventKind::comm:
    case format::ProcessEventKind::exit:
    case format::ProcessEventKind::pid_namespace:
      // Mappings stay after an exit: late events of the process still
      // resolve, and a reused pid starts over with its fork or exec.
      break;
  }
}

MappingsRef StackSymbolizer::mappings(uint32_t file, uint32_t pid) const {
  if (file >= current_.size()) return nullptr;
  auto it = current_[file].find(pid);
  return it != current_[file].end() ? it->second : nullptr;
}

FrameSymbol StackSymbolizer::name_frame(const MappingSet* mappings, uint64_t address,
                                        bool is_return) const {
  FrameSymbol f;
  const uint64_t lookup = is_return && address > 0 ? address - 1 : address;
  const MappingSet::Mapping* m = mappings != nullptr ? mappings->find(lookup) : nullptr;
  if (m == nullptr) {
    f.function = "[unknown]";
    f.object = "[unknown]";
    return f;
  }
  f.mapped = true;
  f.object = paths_[m->path];
  f.file_offset = address - m->start + m->file_offset;
  const uint64_t lookup_offset = lookup - m->start + m->file_offset;
  if (m->object >= 0) {
    const std::vector<format::ObjectSymbol>& symbols =
        files_[mappings->file].objects()[m->object].symbols;
    auto it = std::upper_bound(
        symbols.begin(), symbols.end(), lookup_offset,
        [](uint64_t o, const format::ObjectSymbol& s) { return o < s.file_offset; });
    if (it != symbols.begin()) {
      const format::ObjectSymbol& s = *std::prev(it);
      if (s.size == 0 || lookup_offset < s.file_offset + s.size) {
        f.has_symbol = true;
        f.function = symbol_names(s.name).display;
        f.symbol_offset = f.file_offset - s.file_offset;
        return f;
      }
    }
  }
  f.function = base_name(f.object) + "+" + hex(f.file_offset);
  return f;
}

const FrameSymbol& StackSymbolizer::resolve(const MappingSet* mappings, uint64_t address,
                                            bool is_return) {
  CacheKey key{mappings != nullptr ? mappings->generation : 0, address, is_return};
  auto it = cache_.find(key);
  if (it != cache_.end()) return *it->second;
  auto added =
      cache_.emplace(key, std::make_unique<FrameSymbol>(name_frame(mappings, address, is_return)));
  return *added.first->second;
}

}  // namespace usdt::report
