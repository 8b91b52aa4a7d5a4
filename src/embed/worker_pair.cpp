#include "worker_pair.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lorekeeper::embed {

namespace {

// One short wait of a spin loop; every 16th gives the core to another runnable thread.
void spin_wait(unsigned& n) {
  if (++n % 16 == 0) {
    std::this_thread::yield();
  } else {
#if defined(__x86_64__)
    _mm_pause();
#endif
  }
}

}  // namespace

WorkerPair::WorkerPair() : helper_([this] { loop(); }) {}

WorkerPair::~WorkerPair() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true, std::memory_order_release);
  }
  wake_.notify_one();
  helper_.join();
}

bool WorkerPair::worthwhile() { return std::thread::hardware_concurrency() >= 2; }

bool WorkerPair::try_begin() {
  if (taken_.exchange(true, std::memory_order_acquire)) return false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    open_.store(true, std::memory_order_release);
  }
  wake_.notify_one();
  return true;
}

void WorkerPair::end() {
  open_.store(false, std::memory_order_release);
  taken_.store(false, std::memory_order_release);
}

void WorkerPair::run(Task mine, Task theirs) {
  done_.store(false, std::memory_order_relaxed);
  job_.store(&theirs, std::memory_order_release);
  mine();
  // A helper that has not started its share (not scheduled yet: the machine's cores are busy) is not waited for.
  if (job_.exchange(nullptr, std::memory_order_acq_rel) == &theirs) {
    theirs();
    return;
  }
  unsigned n = 0;
  while (!done_.load(std::memory_order_acquire)) spin_wait(n);
}

void WorkerPair::loop() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_.load(std::memory_order_acquire) || open_.load(std::memory_order_acquire); });
    }
    if (stop_.load(std::memory_order_acquire)) return;
    unsigned n = 0;
    // A share posted before the session closed is always run: its caller is waiting for it.
    while (open_.load(std::memory_order_acquire) || job_.load(std::memory_order_acquire) != nullptr) {
      if (const Task* job = job_.exchange(nullptr, std::memory_order_acq_rel)) {
        (*job)();
        done_.store(true, std::memory_order_release);
        n = 0;
        continue;
      }
      spin_wait(n);
    }
  }
}

}  // namespace lorekeeper::embed
