// Fills a public smrt::RunProfile from the executor's per-step hook.
#ifndef SMRT_API_PROFILE_RECORDER_H_
#define SMRT_API_PROFILE_RECORDER_H_

#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exec/profile.h"
#include "smrt/profile.h"

namespace smrt::api {

class ProfileRecorder : public exec::RunObserver {
 public:
  // Clears *profile and starts its clock; `profile` must outlive this.
  ProfileRecorder(const std::string& signature, RunProfile* profile);
  // Thread-safe: with inter_op_threads > 1 steps finish on pool threads.
  void OnStep(const exec::StepRecord& step) override;
  void OnArena(const exec::ArenaRecord& arena) override;
  // Stops the run's clock.
  void Finish();

 private:
  struct PerThread {
    int index = 0;                  // ProfileEvent::thread
    std::vector<int64_t> nested_ns;  // per depth: time of finished steps one level below
  };

  std::mutex mu_;
  RunProfile* profile_;                          // events guarded by mu_
  std::map<std::thread::id, PerThread> threads_;  // guarded by mu_
};

}  // namespace smrt::api

#endif  // SMRT_API_PROFILE_RECORDER_H_
