// progress.cpp - see progress.hpp.
#include "progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace mxv {

bool progress_enabled() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string label, std::int64_t total, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), total_(total), on_(progress_enabled()) {
  t0_ = last_ = std::chrono::steady_clock::now();
  if (const char* e = std::getenv("MXCONFORM_PROGRESS_AFTER_MS")) after_ = std::chrono::milliseconds(std::atoll(e));
}

Progress::~Progress() {
  if (shown_) draw(true);
}

void Progress::add(std::int64_t n) {
  done_.fetch_add(n, std::memory_order_relaxed);
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - t0_ < after_) return;
  std::unique_lock<std::mutex> lk(mu_, std::try_to_lock);
  if (!lk.owns_lock()) return;
  if (shown_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  draw(false);
}

void Progress::draw(bool final) {
  const std::int64_t d = done_.load(), t = total_.load();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  char buf[256];
  if (t > 0) {
    std::snprintf(buf, sizeof buf, "\r%s: %3d%% (%lld/%lld %s, %.1f s)%s", label_.c_str(),
                  static_cast<int>(100.0 * static_cast<double>(d) / static_cast<double>(t)), static_cast<long long>(d),
                  static_cast<long long>(t), unit_.c_str(), secs, final ? "\n" : "");
  } else {
    std::snprintf(buf, sizeof buf, "\r%s: %lld %s (%.1f s)%s", label_.c_str(), static_cast<long long>(d), unit_.c_str(), secs,
                  final ? "\n" : "");
  }
  std::fputs(buf, stderr);
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace mxv
