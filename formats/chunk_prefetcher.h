// Loads and decodes chunks on worker threads ahead of the merge, so that a
// reader uses more than one core while its records still come out in the
// one order of formats/FORMAT.md section 4: the merger asks for the chunks
// in the order it would load them itself, and gets each one fully decoded
// (ChunkDecoder::drain) or with the reason it is bad, which it reports as
// the serial reader does.
//
// Memory: at most `window` chunks are taken ahead of the merger, and what
// they hold (ChunkDecoder::held_bytes, the drained records included) stays
// within `budget_bytes`: each job may hold a share of it (the job the merger
// waits for, all of it), and a chunk that needs more is handed over
// undecoded (PreparedChunk::deferred) for the merger to load itself. Besides
// that, each worker keeps its loader's buffers (kLoaderBuffers). Worker
// threads are joined by the destructor, on every path.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "formats/chunk_loader.h"
#include "formats/file_layout.h"

namespace usdt::format {

class ChunkPrefetcher {
 public:
  // jobs: the chunks in the order take() will ask for them.
  ChunkPrefetcher(const ChunkLoadContext& ctx, std::vector<IndexEntry> jobs, unsigned threads,
                  size_t window, uint64_t budget_bytes);
  ChunkPrefetcher(const ChunkPrefetcher&) = delete;
  ChunkPrefetcher& operator=(const ChunkPrefetcher&) = delete;
  ~ChunkPrefetcher();

  size_t size() const { return jobs_.size(); }
  // The result of job i, waiting for it; i goes 0, 1, 2, ... (each once).
  PreparedChunk take(size_t i);
  // The most bytes held at once by the jobs not yet taken.
  uint64_t peak();

 private:
  void work();
  // Whether a worker may start job next_job_ (under mu_).
  bool may_start() const;
  // Loads job i with room for max_held bytes, drained when loaded.
  PreparedChunk run(ChunkLoader& loader, size_t i, uint64_t max_held);

  ChunkLoadContext ctx_;
  std::vector<IndexEntry> jobs_;
  size_t window_;
  uint64_t budget_;

  std::mutex mu_;
  std::condition_variable work_cv_;  // a job may start, or stop_
  std::condition_variable done_cv_;  // a job finished
  size_t next_job_ = 0;              // the next job a worker starts
  size_t taken_ = 0;                 // jobs the merger has taken
  uint64_t share_;                   // what a job started ahead may hold
  uint64_t in_flight_ = 0;           // bytes of started, untaken jobs
  uint64_t peak_ = 0;                // the most of in_flight_
  std::unordered_map<size_t, PreparedChunk> done_;
  std::unordered_map<size_t, uint64_t> charged_;  // in_flight_ share of each untaken job
  bool stop_ = false;
  std::vector<std::thread> threads_;  // last: started once the rest is set
};

}  // namespace usdt::format
