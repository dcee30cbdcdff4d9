// Calls the digit classifier shipped in examples/models/digits on its sample
// images and prints each prediction next to the true label.
//
//   classify_digits examples/models/digits
#include <cstdio>
#include <string>

#include "npy_reader.h"
#include "smrt/model.h"

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "examples/models/digits";
  absl::StatusOr<std::unique_ptr<smrt::Model>> model = smrt::Model::Load(dir);
  if (!model.ok()) {
    std::fprintf(stderr, "load failed: %s\n", std::string(model.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<smrt::Tensor> pixels = examples::ReadNpy(dir + "/samples/inputs.npy");
  absl::StatusOr<smrt::Tensor> labels = examples::ReadNpy(dir + "/samples/labels.npy");
  if (!pixels.ok() || !labels.ok()) {
    std::fprintf(stderr, "cannot read samples: %s\n",
                 std::string((pixels.ok() ? labels.status() : pixels.status()).message()).c_str());
    return 1;
  }
  absl::StatusOr<smrt::NamedTensors> out =
      (*model)->Run("serving_default", {{"pixels", *pixels}});
  if (!out.ok()) {
    std::fprintf(stderr, "run failed: %s\n", std::string(out.status().message()).c_str());
    return 1;
  }
  const smrt::Tensor& probs = out->at("probabilities");
  const int64_t n = probs.dim(0), classes = probs.dim(1);
  int correct = 0;
  std::printf("image  true  predicted  probability\n");
  for (int64_t i = 0; i < n; ++i) {
    const float* p = probs.data<float>() + i * classes;
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c) {
      if (p[c] > p[best]) best = c;
    }
    const int64_t truth = labels->data<int64_t>()[i];
    correct += best == truth;
    std::printf("%5lld  %4lld  %9lld  %.4f   %s\n", static_cast<long long>(i),
                static_cast<long long>(truth), static_cast<long long>(best), p[best],
                best == truth ? "ok" : "WRONG");
  }
  std::printf("%d of %lld correct\n", correct, static_cast<long long>(n));
  return correct == n ? 0 : 2;
}
