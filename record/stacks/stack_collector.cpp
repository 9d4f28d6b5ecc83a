#include "record/stacks/stack_collector.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "common/elf_file.h"
#include "common/proc_maps.h"
#include "record/dwarf/debuginfo_finder.h"
#include "record/kernel/perf_event.h"
#include "record/stacks/fp_caller.h"
#include "record/stacks/object_table.h"
#ifdef USDT_HAVE_DWARF_UNWINDER
#include "record/stacks/dwarf_unwinder.h"
#endif

namespace usdt::record {

#ifdef USDT_HAVE_DWARF_UNWINDER
bool dwarf_unwinding_available() { return true; }
#else
bool dwarf_unwinding_available() { return false; }
// Only its destructor is needed here, through unique_ptr; never made.
class DwarfUnwinder {
 public:
  void forget(uint32_t) {}
};
#endif

Result<std::unique_ptr<StackCollector>> StackCollector::create(const CallGraph& graph) {
  if (graph.mode == CallGraphMode::dwarf && !dwarf_unwinding_available()) {
    return Error(
        "-g dwarf is not available: this usdt-record was built without the DWARF unwinder "
        "(record/stacks/dwarf_unwinder.cpp)\nhint: use -g fp (needs programs built with "
        "frame pointers)");
  }
  return std::unique_ptr<StackCollector>(new StackCollector(graph));
}

StackCollector::StackCollector(const CallGraph& graph) : graph_(graph) {
#ifdef USDT_HAVE_DWARF_UNWINDER
  if (graph.mode == CallGraphMode::dwarf) unwinder_ = std::make_unique<DwarfUnwinder>();
#endif
  frames_.reserve(graph.depth + 1);
  if (Result<VdsoImage> vdso = own_vdso()) vdso_build_id_ = vdso->build_id;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  started_ns_ = int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

StackCollector::~StackCollector() = default;

std::string StackCollector::build_id_of(const std::string& path, const std::string& open_path,
                                        uint64_t mapped_inode) {
  if (path == "[vdso]") return vdso_build_id_;
  if (path.empty() || path[0] != '/') return "";
  struct stat st {};
  std::string file = open_path;
  if (stat(open_path.c_str(), &st) != 0) {
    if (open_path == path || stat(path.c_str(), &st) != 0) return "";
    if (mapped_inode != 0 && st.st_ino != mapped_inode) return "";  // another file of that name
    // Without an inode to compare (an mmap record), only a file unchanged
    // since the recording began can be the one mapped during it.
    if (mapped_inode == 0 && changed_after(st, started_ns_)) return "";
    file = path;
  }
  const std::pair<dev_t, ino_t> key{st.st_dev, st.st_ino};
  auto it = build_ids_.find(key);
  if (it != build_ids_.end()) return it->second;
  // Remembered only once read: an open that fails (the process exited
  // after the stat) says nothing about the file (LoadLayoutCache likewise).
  Result<ElfFile> elf = ElfFile::open(file);
  if (!elf) return "";
  std::string id = elf_build_id(elf->get());
  build_ids_.emplace(key, id);
  return id;
}

std::vector<format::ProcessEvent> StackCollector::seed(uint32_t pid, uint64_t time_ns) {
  std::vector<format::ProcessEvent> out;
  Result<std::vector<MapEntry>> maps = read_proc_maps(static_cast<pid_t>(pid));
  if (!maps) return out;
  ProcessMappings& mappings = mappings_[pid];
  const std::string proc = "/proc/" + std::to_string(pid);
  for (const MapEntry& m : *maps) {
    if (m.perms.size() < 3 || m.perms[2] != 'x') continue;
    format::ProcessEvent e;
    e.time_ns = time_ns;
    e.kind = format::ProcessEventKind::mmap;
    e.pid = pid;
    e.tid = pid;
    e.map_address = m.start;
    e.map_length = m.end - m.start;
    e.map_file_offset = m.offset;
    e.path = m.path.empty() ? "//anon" : m.path;
    if (!m.path.empty() && m.path[0] == '/') {
      // map_files/ reads the very file mapped, also when it was deleted.
      std::string open_path =
          m.deleted ? map_files_path(pid, m.start, m.end - m.start) : proc + "/root" + m.path;
      e.build_id = build_id_of(m.path, open_path, m.inode);
    } else {
      e.build_id = build_id_of(e.path, e.path);
    }
    mappings.add(to_mapping(e));
    out.push_back(std::move(e));
  }
  seeded_.insert(pid);
  return out;
}

void StackCollector::pin_file(uint32_t pid, const ExecMapping& mapping, StackObject& object) {
  struct stat st;
  const bool named =
      stat(object.open_path.c_str(), &st) == 0 || stat(mapping.path.c_str(), &st) == 0;
  if (named && !mapping.build_id.empty()) return;
  std::string mapped = map_files_path(pid, mapping.start, mapping.end - mapping.start);
  UniqueFd fd(open(mapped.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return;
  object.open_path = "/proc/self/fd/" + std::to_string(fd.get());
  object.pinned = std::make_shared<UniqueFd>(std::move(fd));
}

ExecMapping StackCollector::to_mapping(const format::ProcessEvent& e) {
  ExecMapping m;
  m.start = e.map_address;
  m.end = e.map_address + e.map_length;
  m.file_offset = e.map_file_offset;
  m.path = e.path;
  m.build_id = e.build_id;
  return m;
}

void StackCollector::complete(format::ProcessEvent& e) {
  if (e.kind != format::ProcessEventKind::mmap || !e.build_id.empty()) return;
  e.build_id = build_id_of(e.path, "/proc/" + std::to_string(e.pid) + "/root" + e.path);
}

void StackCollector::on_process(const format::ProcessEvent& e) {
  switch (e.kind) {
    case format::ProcessEventKind::mmap: {
      format::ProcessEvent full = e;
      complete(full);
      mappings_[e.pid].add(to_mapping(full));
      break;
    }
    case format::ProcessEventKind::exec:
      mappings_[e.pid].clear();
      if (unwinder_) unwinder_->forget(e.pid);
      seeded_.insert(e.pid);
      break;
    case format::ProcessEventKind::fork:
      if (e.tid != e.pid || e.pid == e.parent_pid) break;  // a thread: same mappings
      advance_to(e.parent_pid, e.time_ns);                 // the parent's at the fork
      if (auto parent = mappings_.find(e.parent_pid); parent != mappings_.end()) {
        mappings_[e.pid] = parent->second;
        if (seeded_.count(e.parent_pid) != 0) seeded_.insert(e.pid);
      }
      break;
    case format::ProcessEventKind::exit:
      // (Applied again when a pass's records are rewound: counted once.)
      if (e.tid == e.pid && std::find(exited_.begin(), exited_.end(), e.pid) == exited_.end()) {
        exited_.push_back(e.pid);
      }
      break;
    case format::ProcessEventKind::comm:
    case format::ProcessEventKind::pid_namespace:
      break;
  }
}

void StackCollector::begin_pass(std::vector<format::ProcessEvent> records) {
  timelines_.clear();
  for (format::ProcessEvent& e : records) {
    auto [it, added] = timelines_.try_emplace(e.pid);
    PassTimeline& t = it->second;
    if (added) {
      auto m = mappings_.find(e.pid);
      t.had_mappings = m != mappings_.end();
      if (t.had_mappings) t.start = m->second;
      t.start_seeded = seeded_.count(e.pid) != 0;
    }
    t.records.push_back(std::move(e));
  }
}

void StackCollector::advance_to(uint32_t pid, uint64_t time_ns) {
  auto it = timelines_.find(pid);
  if (it == timelines_.end()) return;
  PassTimeline& t = it->second;
  if (t.applied > 0 && t.records[t.applied - 1].time_ns > time_ns) {
    // A sample older than what was applied: back to the pass's start.
    if (t.had_mappings) {
      mappings_[pid] = t.start;
    } else {
      mappings_.erase(pid);
    }
    if (t.start_seeded) {
      seeded_.insert(pid);
    } else {
      seeded_.erase(pid);
    }
    t.applied = 0;
  }
  // (A fork record advances its parent's timeline first; t, an element of
  // an unordered_map, stays valid meanwhile.)
  while (t.applied < t.records.size() && t.records[t.applied].time_ns <= time_ns) {
    on_process(t.records[t.applied++]);
  }
}

void StackCollector::end_pass() {
  std::vector<uint32_t> pids;
  for (const auto& [pid, unused] : timelines_) pids.push_back(pid);
  for (uint32_t pid : pids) advance_to(pid, std::numeric_limits<uint64_t>::max());
  timelines_.clear();
  for (uint32_t pid : exited_) {
    mappings_.erase(pid);
    seeded_.erase(pid);
    if (unwinder_) unwinder_->forget(pid);
    ++exits_;
  }
  exited_.clear();
}

std::vector<format::ProcessEvent> StackCollector::take_seeded() {
  std::vector<format::ProcessEvent> out;
  out.swap(seeded_events_);
  return out;
}

void StackCollector::collect_fp(const StackInputs& inputs) {
  // The kernel stops at sample_max_stack entries, context markers included:
  // a chain that long may have been cut.
  const Callchain& chain = inputs.callchain;
  for (uint64_t i = 0; i < chain.nr; ++i) {
    uint64_t address = chain.at(i);
    if (address >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) continue;
    if (frames_.size() >= graph_.depth) break;
    frames_.push_back(address);
  }
  truncated_ = chain.nr >= graph_.depth;
  repair_caller(*inputs.repair, *inputs.regs, inputs.stack, &frames_, &truncated_);
  if (frames_.size() > graph_.depth) {
    frames_.resize(graph_.depth);
    truncated_ = true;
  }
}

void StackCollector::collect_dwarf(uint32_t pid, const StackInputs& inputs) {
#ifdef USDT_HAVE_DWARF_UNWINDER
  const SampledRegs& regs = *inputs.regs;
  const StackDump& stack = inputs.stack;
  if (!regs.present()) return;
  const ProcessMappings& mappings = mappings_[pid];
  truncated_ = unwinder_->unwind(pid, mappings, unwind_registers_from_perf(regs), stack.data,
                                 stack.data == nullptr ? 0 : stack.size, graph_.depth, &frames_);
  if (frames_.size() > graph_.depth) frames_.resize(graph_.depth);
#else
  (void)pid;
  (void)inputs;
#endif
}

void StackCollector::note_objects(uint32_t pid) {
  auto it = mappings_.find(pid);
  if (it == mappings_.end()) return;
  const ProcessMappings& mappings = it->second;
  // FNV-1a over what decides the objects and offsets of this stack.
  uint64_t hash = 1469598103934665603ull;
  auto mix = [&hash](uint64_t v) {
    hash ^= v;
    hash *= 1099511628211ull;
  };
  mix(pid);
  mix(exits_);
  mix(mappings.generation());
  for (uint64_t frame : frames_) mix(frame);
  // Bounded: a program with endless distinct stacks only re-notes some.
  constexpr size_t kMaxNotedStacks = 1 << 20;
  if (noted_stacks_.size() >= kMaxNotedStacks) noted_stacks_.clear();
  if (!noted_stacks_.insert(hash).second) return;

  const ExecMapping* last = nullptr;
  size_t index = 0;
  for (size_t i = 0; i < frames_.size(); ++i) {
    // A return address belongs to the call before it.
    const uint64_t address = i == 0 ? frames_[i] : frames_[i] - 1;
    const ExecMapping* m = mappings.find(address);
    if (m == nullptr) continue;
    if (m != last) {
      last = nullptr;
      // Anonymous code (JIT) and [vsyscall] have no symbols to write.
      const bool special = !m->path.empty() && m->path[0] == '[' && m->path != "[vdso]";
      if (m->path.empty() || m->path == "//anon" || special) continue;
      std::string key = m->build_id.empty() ? "path:" + m->path : m->build_id;
      auto [found, inserted] = object_index_.emplace(key, objects_.size());
      if (inserted) {
        StackObject object;
        object.path = m->path;
        object.build_id = m->build_id;
        object.open_path =
            m->path[0] == '/' ? "/proc/" + std::to_string(pid) + "/root" + m->path : m->path;
        object.unchanged_since_ns = started_ns_;
        if (m->path[0] == '/') pin_file(pid, *m, object);
        objects_.push_back(std::move(object));
        object_offsets_.emplace_back();
      }
      index = found->second;
      last = m;
    }
    object_offsets_[index].insert(m->file_offset_of(address));
  }
}

void StackCollector::collect(const StackInputs& inputs, format::Event& event) {
  frames_.clear();
  truncated_ = false;
  advance_to(event.pid, event.time_ns);
  if (seeded_.count(event.pid) == 0) {
    // A process that ran before the recording (-a) or was forked by an
    // unseeded one: its mappings as they are now, just before this event.
    std::vector<format::ProcessEvent> seeded =
        seed(event.pid, event.time_ns > 0 ? event.time_ns - 1 : 0);
    seeded_events_.insert(seeded_events_.end(), seeded.begin(), seeded.end());
  }
  if (graph_.mode == CallGraphMode::fp) {
    collect_fp(inputs);
  } else if (graph_.mode == CallGraphMode::dwarf) {
    collect_dwarf(event.pid, inputs);
  }
  if (frames_.empty()) {
    event.stack = nullptr;
    event.stack_depth = 0;
    event.stack_truncated = false;
    return;
  }
  note_objects(event.pid);
  event.stack = frames_.data();
  event.stack_depth = static_cast<uint16_t>(frames_.size());
  event.stack_truncated = truncated_;
}

std::vector<StackObject> StackCollector::objects() const {
  std::vector<StackObject> out = objects_;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].offsets.assign(object_offsets_[i].begin(), object_offsets_[i].end());
    std::sort(out[i].offsets.begin(), out[i].offsets.end());
  }
  return out;
}

}  // namespace usdt::record
