// A helper thread that computes one share of a split computation while the calling thread computes the other: the
// query encoder splits each layer's matrix products by output columns between the two (a query's encoding is
// bound by arithmetic on one core, and a search thread waits for it with the second core idle). Within a session
// (one encoding) the helper spins between shares, so handing it one costs no wake-up; outside a session it sleeps.
// One session at a time: a caller that finds the helper taken computes alone.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

namespace lorekeeper::embed {

// A callable borrowed for the duration of a call: no copy and no allocation (a std::function of a lambda holding
// several references would allocate for every product of a query).
class Task {
 public:
  // Refers to `f`, which must outlive every call (a temporary lives until the call it is an argument of returns).
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Task>>>
  Task(F&& f)  // NOLINT(google-explicit-constructor): passed as a callable
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o) { (*static_cast<std::remove_reference_t<F>*>(o))(); }) {}
  void operator()() const { call_(object_); }

 private:
  void* object_;
  void (*call_)(void*);
};

class WorkerPair {
 public:
  WorkerPair();
  ~WorkerPair();  // stops and joins the helper
  WorkerPair(const WorkerPair&) = delete;
  WorkerPair& operator=(const WorkerPair&) = delete;

  // Opens a session and wakes the helper; false (nothing opened) while another thread holds a session.
  bool try_begin();
  // Closes the session: the helper goes back to sleep.
  void end();
  // Runs `theirs` on the helper and `mine` on the calling thread, and returns when both are done; `theirs` runs on
  // the calling thread too when the helper has not started it by the time `mine` is done. Only between
  // try_begin() and end(), from the thread that opened the session.
  void run(Task mine, Task theirs);

  // Whether this machine has a second hardware thread for the helper.
  static bool worthwhile();

 private:
  void loop();

  std::atomic<bool> taken_{false};  // a session is held (try_begin .. end)
  std::atomic<bool> open_{false};   // the helper should stay awake and spin
  std::atomic<bool> stop_{false};
  std::atomic<const Task*> job_{nullptr};
  std::atomic<bool> done_{true};
  std::mutex mu_;
  std::condition_variable wake_;
  std::thread helper_;
};

// Closes a WorkerPair session when it goes out of scope (nothing when none was opened).
class WorkerSession {
 public:
  explicit WorkerSession(WorkerPair* pair) : pair_(pair && pair->try_begin() ? pair : nullptr) {}
  ~WorkerSession() {
    if (pair_) pair_->end();
  }
  WorkerSession(const WorkerSession&) = delete;
  WorkerSession& operator=(const WorkerSession&) = delete;
  // The pair while the session is open, else null.
  WorkerPair* pair() const { return pair_; }

 private:
  WorkerPair* pair_;
};

}  // namespace lorekeeper::embed
