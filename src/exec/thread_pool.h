// A fixed set of worker threads for inter-op parallelism (one per loaded
// model with LoadOptions::inter_op_threads > 1). Idle workers block on a
// condition variable: nothing spins once a call has returned.
#ifndef SMRT_EXEC_THREAD_POOL_H_
#define SMRT_EXEC_THREAD_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace smrt::exec {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  // Finishes the queued tasks, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()); }
  void Schedule(std::function<void()> task);

 private:
  void Work();

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace smrt::exec

#endif  // SMRT_EXEC_THREAD_POOL_H_
