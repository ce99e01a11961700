// progress.hpp - the progress line of long mxconform commands (issue 15):
// gen, check, quantize, dequantize. Shown on stderr only when stderr is a
// terminal (isatty) and only once the work has run for a second; a command
// whose stderr is a file or a pipe prints nothing extra.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace mxv {

// True when stderr is a terminal. MXCONFORM_PROGRESS_AFTER_MS (milliseconds,
// default 1000) sets how long work runs before the line appears.
bool progress_enabled();

class Progress {
 public:
  // `total` units of work (0: unknown); `unit` names them ("MiB", "files").
  Progress(std::string label, std::int64_t total, std::string unit);
  ~Progress();  // ends the line with a newline when one was shown
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void add(std::int64_t n);  // thread-safe
  void set_total(std::int64_t total) { total_.store(total); }

 private:
  void draw(bool final);
  std::string label_, unit_;
  std::atomic<std::int64_t> done_{0}, total_{0};
  bool on_ = false;
  bool shown_ = false;
  std::chrono::steady_clock::time_point t0_, last_;
  std::chrono::milliseconds after_{1000};
  std::mutex mu_;
};

}  // namespace mxv
