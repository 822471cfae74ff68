// A start gate for client threads: every thread connects first, then all
// start at once, so connection set-up is neither measured nor staggered.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

class StartGate {
 public:
  using Clock = std::chrono::steady_clock;
  explicit StartGate(size_t n) : expected_(n) {}

  // A worker thread, once connected (or failed to): blocks until open().
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lk(mu_);
    ++arrived_;
    cv_.notify_all();
    cv_.wait(lk, [this] { return open_; });
  }
  // The main thread: waits until every worker has arrived.
  void wait_all_arrived() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [this] { return arrived_ == expected_; });
  }
  void open() {
    std::lock_guard<std::mutex> lk(mu_);
    open_ = true;
    start_ = Clock::now();
    cv_.notify_all();
  }
  Clock::time_point start() {
    std::lock_guard<std::mutex> lk(mu_);
    return start_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  size_t expected_;
  size_t arrived_ = 0;
  bool open_ = false;
  Clock::time_point start_;
};
