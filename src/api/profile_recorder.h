// Fills a public smrt::RunProfile from the executor's per-step hook.
#ifndef SMRT_API_PROFILE_RECORDER_H_
#define SMRT_API_PROFILE_RECORDER_H_

#include <string>
#include <vector>

#include "exec/profile.h"
#include "smrt/profile.h"

namespace smrt::api {

class ProfileRecorder : public exec::RunObserver {
 public:
  // Clears *profile and starts its clock; `profile` must outlive this.
  ProfileRecorder(const std::string& signature, RunProfile* profile);
  void OnStep(const exec::StepRecord& step) override;
  // Stops the run's clock.
  void Finish();

 private:
  RunProfile* profile_;
  std::vector<int64_t> nested_ns_;  // per depth: time of finished steps one level below
};

}  // namespace smrt::api

#endif  // SMRT_API_PROFILE_RECORDER_H_
