// A one-line progress report on stderr for long CLI runs (`smrt bench
// --time 60`), redrawn in place with '\r' a few times a second and erased
// when done. Only on a terminal: piped or redirected stderr (scripts, CI
// logs, tests) gets nothing, so it never mixes into what programs read.
#ifndef SMRT_TOOLS_PROGRESS_LINE_H_
#define SMRT_TOOLS_PROGRESS_LINE_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace smrt::cli {

class ProgressLine {
 public:
  // Calls `text` from a thread of its own every period_ms and prints what it
  // returns; `text` must be safe to call concurrently with the work it
  // reports (read atomics). Does nothing when stderr is not a terminal.
  explicit ProgressLine(std::function<std::string()> text, int period_ms = 250);
  // Stops and erases the line.
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void Loop();

  std::function<std::string()> text_;
  int period_ms_;
  size_t width_ = 0;  // of the longest line drawn, to erase it
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_PROGRESS_LINE_H_
