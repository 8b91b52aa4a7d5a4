// The query encoder's helper thread (src/embed/worker_pair.hpp): both shares run, one session at a time, and a
// caller never waits for a share the helper has not started.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "lorekeeper/embed/encoder.hpp"
#include "worker_pair.hpp"

namespace lorekeeper::embed {
namespace {

TEST(WorkerPair, RunsBothSharesInASessionManyTimes) {
  WorkerPair pair;
  ASSERT_TRUE(pair.try_begin());
  std::vector<int> mine(1000, 0), theirs(1000, 0);
  for (int i = 0; i < 1000; ++i) {
    pair.run([&] { mine[static_cast<size_t>(i)] += i; }, [&] { theirs[static_cast<size_t>(i)] += 2 * i; });
  }
  pair.end();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(mine[static_cast<size_t>(i)], i);
    ASSERT_EQ(theirs[static_cast<size_t>(i)], 2 * i);  // each share ran exactly once
  }
  // Sessions follow one another; the helper sleeps between them.
  for (int s = 0; s < 50; ++s) {
    ASSERT_TRUE(pair.try_begin());
    int a = 0, b = 0;
    pair.run([&] { a = 1; }, [&] { b = 1; });
    pair.end();
    ASSERT_EQ(a + b, 2);
  }
}

TEST(WorkerPair, OneSessionAtATimeAndOthersComputeAlone) {
  WorkerPair pair;
  ASSERT_TRUE(pair.try_begin());
  EXPECT_FALSE(pair.try_begin());
  {
    WorkerSession other(&pair);
    EXPECT_EQ(other.pair(), nullptr);
  }
  pair.end();
  {
    WorkerSession next(&pair);
    EXPECT_EQ(next.pair(), &pair);
    WorkerSession during(&pair);
    EXPECT_EQ(during.pair(), nullptr);
  }
  EXPECT_TRUE(pair.try_begin());  // the session closed with `next`
  pair.end();
  WorkerSession none(nullptr);
  EXPECT_EQ(none.pair(), nullptr);
}

TEST(WorkerPair, ManyThreadsSharingOnePairEachGetEveryShareRun) {
  WorkerPair pair;
  std::atomic<long> total{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 300; ++i) {
        WorkerSession session(&pair);
        if (WorkerPair* p = session.pair()) {
          p->run([&] { total += 1; }, [&] { total += 1; });
        } else {
          total += 2;  // computed alone
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(total.load(), 4L * 300 * 2);
}

TEST(WorkerPair, DestroyedWhileAsleepOrRightAfterASession) {
  { WorkerPair idle; }
  WorkerPair pair;
  ASSERT_TRUE(pair.try_begin());
  int a = 0, b = 0;
  pair.run([&] { a = 1; }, [&] { b = 1; });
  pair.end();
  EXPECT_EQ(a + b, 2);
}

}  // namespace
}  // namespace lorekeeper::embed
