#include "smrt/progress_line.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace smrt::cli {

ProgressLine::ProgressLine(std::function<std::string()> text, int period_ms)
    : text_(std::move(text)), period_ms_(period_ms) {
  if (isatty(STDERR_FILENO)) thread_ = std::thread([this] { Loop(); });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (width_ > 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
  std::fflush(stderr);
}

void ProgressLine::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(period_ms_), [this] { return stop_; })) {
    const std::string line = text_();
    // Pad over the tail of a longer previous line.
    std::fprintf(stderr, "\r%-*s", static_cast<int>(width_), line.c_str());
    std::fflush(stderr);
    width_ = std::max(width_, line.size());
  }
}

}  // namespace smrt::cli
