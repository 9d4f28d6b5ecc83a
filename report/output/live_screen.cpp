#include "report/output/live_screen.h"

#include <unistd.h>

namespace usdt::report {

namespace {

// Cursor to the top left, then clear to the end of the screen: the new
// screen is written over the old one without a blank flash between them.
constexpr const char* kHome = "\x1b[H";
constexpr const char* kClearBelow = "\x1b[J";

}  // namespace

LiveScreen::LiveScreen(std::FILE* out, bool every_screen)
    : out_(out), terminal_(isatty(fileno(out)) == 1), every_screen_(every_screen) {}

bool LiveScreen::draw(const std::string& text, bool final) {
  if (terminal_) {
    // The first screen starts on a cleared screen; later ones go over it.
    std::string frame = drawn_ ? kHome : std::string(kHome) + "\x1b[2J";
    // Each line cleared to its end, so that a shorter line leaves nothing behind.
    for (size_t at = 0; at < text.size();) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      frame.append(text, at, end - at);
      frame += "\x1b[K\n";
      at = end + 1;
    }
    frame += kClearBelow;
    drawn_ = true;
    std::fputs(frame.c_str(), out_);
  } else if (every_screen_ || final) {
    if (drawn_) std::fputc('\n', out_);
    drawn_ = true;
    std::fputs(text.c_str(), out_);
  }
  return std::fflush(out_) == 0 && !std::ferror(out_);
}

std::string live_status_line(const LiveTrace& live, const FollowState& state) {
  if (state.silent_ns != 0) {
    return "(no progress from the recorder for " + std::to_string(state.silent_ns / 1000000000) +
           " s: stopped or killed? the report below counts what the file holds)";
  }
  if (!live.ordered()) {
    return "(recording in progress; a recorder before format 1.8: what it flushed so far)";
  }
  const uint64_t start = live.timeline_start();
  const uint64_t up_to = live.complete_before() > start ? live.complete_before() - start : 0;
  char text[128];
  std::snprintf(text, sizeof text,
                "(recording in progress: the report of its first %.3f s, renewed every second)",
                static_cast<double>(up_to) / 1e9);
  return text;
}

}  // namespace usdt::report
