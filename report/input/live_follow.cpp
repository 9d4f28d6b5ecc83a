#include "report/input/live_follow.h"

#include <thread>

namespace usdt::report {

namespace {

// A recorder that said it writes progress within `every` and has written
// nothing for this many times that, and two seconds more, is taken for
// stopped: a loaded machine delays a flush by a second or two, not more.
constexpr uint64_t kSilentAfterPromises = 3;
constexpr uint64_t kSilentGraceNs = 2'000'000'000;

}  // namespace

Result<FollowEnd> follow_trace(LiveTrace& live, const FollowOptions& options,
                               const std::function<void()>& take,
                               const std::function<bool(const FollowState&)>& show,
                               bool restart_on_new_sites) {
  using Clock = std::chrono::steady_clock;
  const uint64_t sites_version = live.sites_version();
  Clock::time_point last_news = Clock::now();
  Clock::time_point next_screen = Clock::now() + options.interval;
  bool first = true;  // what the trace's opening took comes now
  for (;;) {
    Result<bool> news = live.poll();
    if (!news) return news.error();
    if (restart_on_new_sites && live.sites_version() != sites_version) {
      return FollowEnd::sites_changed;
    }
    const Clock::time_point now = Clock::now();
    if (*news || first) {
      if (*news) last_news = now;
      take();
      first = false;
    }
    FollowState state;
    state.ended = live.ended();
    state.final = state.ended || options.once;
    const uint64_t every = live.progress_every_ns();
    const uint64_t quiet = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_news).count());
    if (every != 0 && quiet > every * kSilentAfterPromises + kSilentGraceNs) {
      state.silent_ns = quiet;
    }
    if (state.final) return show(state) ? FollowEnd::ended : FollowEnd::output_failed;
    if (now >= next_screen) {
      if (!show(state)) return FollowEnd::output_failed;
      next_screen = now + options.interval;
    }
    // The next look: a tenth of the interval, so that the end of a recording
    // and the screens come on time.
    std::this_thread::sleep_until(std::min(next_screen, now + options.interval / 10));
  }
}

}  // namespace usdt::report
