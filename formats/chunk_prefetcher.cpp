#include "formats/chunk_prefetcher.h"

#include <algorithm>
#include <exception>
#include <string>

namespace usdt::format {

ChunkPrefetcher::ChunkPrefetcher(const ChunkLoadContext& ctx, std::vector<IndexEntry> jobs,
                                 unsigned threads, size_t window, uint64_t budget_bytes)
    : ctx_(ctx),
      jobs_(std::move(jobs)),
      window_(window == 0 ? 1 : window),
      budget_(budget_bytes),
      share_(budget_bytes / window_) {
  try {
    for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  } catch (...) {
    // Joins the threads already started before the error goes on.
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
    throw;
  }
}

ChunkPrefetcher::~ChunkPrefetcher() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool ChunkPrefetcher::may_start() const {
  if (next_job_ >= jobs_.size()) return false;
  if (next_job_ == taken_) return true;  // the merger waits for it
  if (next_job_ >= taken_ + window_) return false;
  return in_flight_ + share_ <= budget_;
}

PreparedChunk ChunkPrefetcher::run(ChunkLoader& loader, size_t i, uint64_t max_held) {
  PreparedChunk p;
  try {
    p = loader.load(jobs_[i], max_held);
    if (p.decoder) p.decoder->drain();
  } catch (const std::exception& e) {
    // Nothing may escape a thread (that would terminate): the chunk is
    // reported as bad instead, like any other chunk that cannot be decoded.
    p = PreparedChunk{};
    p.decode_error = std::string("cannot decode it: ") + e.what();
  }
  if (p.over_budget) {
    // More than this job's room, not necessarily more than the merger's.
    p = PreparedChunk{};
    p.deferred = true;
  }
  return p;
}

void ChunkPrefetcher::work() {
  ChunkLoader loader(ctx_);
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    work_cv_.wait(lk, [&] { return stop_ || next_job_ >= jobs_.size() || may_start(); });
    if (stop_ || next_job_ >= jobs_.size()) return;
    size_t i = next_job_++;
    // The job the merger waits for may take what the others leave (all of
    // it: none is in flight then); the others a share.
    const uint64_t room = budget_ - std::min(budget_, in_flight_);
    const uint64_t charge = i == taken_ ? room : std::min(room, share_);
    in_flight_ += charge;
    peak_ = std::max(peak_, in_flight_);
    charged_[i] = charge;
    lk.unlock();
    PreparedChunk p = run(loader, i, charge);
    const uint64_t actual = p.decoder ? p.decoder->held_bytes() : 0;
    lk.lock();
    // Charge what the chunk really holds, now that it is known.
    if (auto c = charged_.find(i); c != charged_.end()) {
      in_flight_ = in_flight_ - c->second + actual;
      c->second = actual;
    }
    done_.emplace(i, std::move(p));
    done_cv_.notify_all();
  }
}

uint64_t ChunkPrefetcher::peak() {
  std::lock_guard<std::mutex> lk(mu_);
  return peak_;
}

PreparedChunk ChunkPrefetcher::take(size_t i) {
  std::unique_lock<std::mutex> lk(mu_);
  done_cv_.wait(lk, [&] { return done_.count(i) != 0; });
  PreparedChunk p = std::move(done_.at(i));
  done_.erase(i);
  in_flight_ -= charged_.at(i);
  charged_.erase(i);
  taken_ = i + 1;
  lk.unlock();
  work_cv_.notify_all();
  return p;
}

}  // namespace usdt::format
