// xcheck/sweep.hpp - multithreaded comparison sweeps for the cross-checks
// (issue 2 items 4 and 5; SPEC C2, C3 ue8m0).
//
// A check is a function case(i) -> Outcome for i in [0, n): it converts one
// input with an implementation nobody here wrote (CUDA host conversions, LLVM
// APFloat, the exact oracle) and with the reference, and says whether the two
// codes agree, disagree, or differ in a *documented* way (a semantic
// difference between that implementation and the contract, explained in the
// check's reason table and counted, never silently dropped).
//
// sweep() runs the cases on std::thread::hardware_concurrency() threads,
// prints a progress line on stderr every second when stderr is a terminal
// (nothing otherwise), stops after
// kMaxMismatches mismatches, and returns a Report that finish() prints
// ("compared N cases, M mismatches"), records with RecordProperty and asserts
// on (failure messages name the input, expected and observed codes in hex
// and the contract clause).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include <unistd.h>
#include <vector>

namespace xcheck {

// Outcome of one case. `doc` >= 0 marks a documented difference (index into
// the check's reason table); it is only set when the raw codes differ and the
// mapped comparison the reason describes agrees.
struct Outcome {
  std::uint32_t input;     // input bit pattern (fp32, bf16 or fp16)
  std::uint32_t expected;  // code from the independent implementation
  std::uint32_t observed;  // code from the reference (libmxref)
  int doc;                 // -1: plain comparison
  // For a documented difference: the reference's code after the mapping the
  // reason describes (what was compared with `expected`).
  std::uint32_t mapped = 0;
};

inline Outcome plain(std::uint32_t in, std::uint32_t expected, std::uint32_t observed) {
  return Outcome{in, expected, observed, -1, observed};
}

struct DocCount {
  std::string reason;
  std::uint64_t count = 0;
  bool have_example = false;
  Outcome example{};
};

struct Report {
  std::string name;    // e.g. "e4m3 rne saturate vs __nv_cvt_float_to_fp8(SATFINITE)"
  std::string clause;  // e.g. "C2"
  int input_bits = 32;
  std::uint64_t total = 0;     // cases requested
  std::uint64_t compared = 0;  // cases actually compared (all unless stopped)
  std::uint64_t mismatches = 0;
  bool stopped_early = false;
  std::vector<Outcome> first;  // first kMaxMismatches mismatches
  std::vector<DocCount> docs;
  double seconds = 0;
};

inline constexpr std::uint64_t kMaxMismatches = 16;

// Totals over several sweeps of one test (recorded once at its end).
struct Totals {
  std::uint64_t compared = 0, mismatches = 0, documented = 0;
  int sweeps = 0;
  void add(const Report& r) {
    compared += r.compared;
    mismatches += r.mismatches;
    for (const auto& d : r.docs) documented += d.count;
    ++sweeps;
  }
  void record(const char* what) const {
    std::printf("[xcheck] %s: %d sweeps, compared %llu cases, %llu mismatches, %llu documented differences\n",
                what, sweeps, static_cast<unsigned long long>(compared),
                static_cast<unsigned long long>(mismatches), static_cast<unsigned long long>(documented));
    ::testing::Test::RecordProperty("compared", std::to_string(compared));
    ::testing::Test::RecordProperty("mismatches", std::to_string(mismatches));
    ::testing::Test::RecordProperty("documented", std::to_string(documented));
  }
};

inline std::string hex(std::uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*X", digits, v);
  return buf;
}

inline std::string human(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Run case_fn(i) for i in [0, n). CaseFn: Outcome(std::uint64_t).
template <class CaseFn>
Report sweep(std::string name, std::string clause, int input_bits, std::uint64_t n,
             const std::vector<std::string>& reasons, CaseFn case_fn) {
  Report rep;
  rep.name = std::move(name);
  rep.clause = std::move(clause);
  rep.input_bits = input_bits;
  rep.total = n;
  for (const auto& r : reasons) rep.docs.push_back(DocCount{r});

  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t chunk = std::uint64_t{1} << 16;
  const std::uint64_t nchunks = (n + chunk - 1) / chunk;
  const unsigned nthreads = static_cast<unsigned>(std::min<std::uint64_t>(hw, std::max<std::uint64_t>(nchunks, 1)));
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> done{0};
  std::atomic<std::uint64_t> bad{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  const auto t0 = std::chrono::steady_clock::now();

  auto worker = [&]() {
    std::uint64_t my_compared = 0;
    std::vector<std::uint64_t> my_docs(reasons.size(), 0);
    std::vector<Outcome> my_examples(reasons.size());
    std::vector<bool> my_have(reasons.size(), false);
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) break;
      const std::uint64_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= nchunks) break;
      const std::uint64_t lo = c * chunk;
      const std::uint64_t hi = std::min(n, lo + chunk);
      for (std::uint64_t i = lo; i < hi; ++i) {
        const Outcome o = case_fn(i);
        if (o.doc >= 0) {
          const auto k = static_cast<std::size_t>(o.doc);
          ++my_docs[k];
          if (!my_have[k]) {
            my_have[k] = true;
            my_examples[k] = o;
          }
        } else if (o.expected != o.observed) {
          bad.fetch_add(1, std::memory_order_relaxed);
          std::lock_guard<std::mutex> lk(mu);
          if (rep.first.size() < kMaxMismatches) rep.first.push_back(o);
          if (rep.first.size() >= kMaxMismatches) stop.store(true);
        }
      }
      my_compared += hi - lo;
      done.fetch_add(hi - lo, std::memory_order_relaxed);
    }
    std::lock_guard<std::mutex> lk(mu);
    rep.compared += my_compared;
    for (std::size_t k = 0; k < reasons.size(); ++k) {
      rep.docs[k].count += my_docs[k];
      if (my_have[k] && !rep.docs[k].have_example) {
        rep.docs[k].have_example = true;
        rep.docs[k].example = my_examples[k];
      }
    }
  };

  std::mutex pmu;
  std::condition_variable pcv;
  bool finished = false;
  // Progress only on a terminal (issue 15): logs and CTest output stay clean.
  const bool tty = isatty(fileno(stderr)) == 1;
  std::thread progress([&]() {
    std::unique_lock<std::mutex> lk(pmu);
    while (!pcv.wait_for(lk, std::chrono::seconds(tty ? 1 : 3600), [&] { return finished; })) {
      if (!tty) continue;
      std::fprintf(stderr, "[xcheck] %s: %s/%s\n", rep.name.c_str(),
                   human(static_cast<double>(done.load())).c_str(),
                   human(static_cast<double>(n)).c_str());
      std::fflush(stderr);
    }
  });
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < nthreads; ++t) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  {
    std::lock_guard<std::mutex> lk(pmu);
    finished = true;
  }
  pcv.notify_all();
  progress.join();
  rep.mismatches = bad.load();
  rep.stopped_early = stop.load();
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

// Print the summary, record it as test properties, and assert: no
// mismatches, and every case either compared plainly or counted under a
// documented reason.
inline void finish(const Report& rep, bool record = true) {
  std::uint64_t documented = 0;
  for (const auto& d : rep.docs) documented += d.count;
  const int in_digits = rep.input_bits / 4;
  std::printf("[xcheck] %s: compared %llu cases, %llu mismatches, %llu documented differences "
              "(%.1f s)%s\n",
              rep.name.c_str(), static_cast<unsigned long long>(rep.compared),
              static_cast<unsigned long long>(rep.mismatches),
              static_cast<unsigned long long>(documented), rep.seconds,
              rep.stopped_early ? " STOPPED EARLY" : "");
  for (const auto& d : rep.docs) {
    if (d.count == 0) continue;
    std::printf("[xcheck]   documented difference (%llu cases): %s; e.g. input %s: independent %s, "
                "reference %s (after mapping %s)\n",
                static_cast<unsigned long long>(d.count), d.reason.c_str(),
                hex(d.example.input, in_digits).c_str(), hex(d.example.expected, 2).c_str(),
                hex(d.example.observed, 2).c_str(), hex(d.example.mapped, 2).c_str());
  }
  std::fflush(stdout);
  if (record) {
    ::testing::Test::RecordProperty("compared", std::to_string(rep.compared));
    ::testing::Test::RecordProperty("mismatches", std::to_string(rep.mismatches));
    ::testing::Test::RecordProperty("documented", std::to_string(documented));
  }

  std::string msg;
  for (const auto& o : rep.first) {
    msg += "  " + rep.clause + " " + rep.name + ": input " + hex(o.input, in_digits) +
           " => observed " + hex(o.observed, 2) + " (reference), expected: " + hex(o.expected, 2) +
           " (independent)\n";
  }
  if (rep.stopped_early) {
    msg += "  stopped after " + std::to_string(kMaxMismatches) + " mismatches (" +
           std::to_string(rep.compared) + " of " + std::to_string(rep.total) +
           " cases compared)\n";
  }
  EXPECT_EQ(rep.mismatches, 0u) << "[" << rep.clause << "] " << rep.name << ": "
                                << rep.mismatches << " mismatches in " << rep.compared
                                << " cases; first ones:\n"
                                << msg;
  EXPECT_EQ(rep.compared, rep.total) << rep.name << ": not every case was compared";
}

}  // namespace xcheck
