// smrt_conformance: runs zoo models (scripts/make_zoo.py output) and the
// community goldens in smrt and prints, per case, whether smrt gives
// TensorFlow's answers. scripts/conformance.sh drives it.
//
//   smrt_conformance [--zoo DIR]... [--community] [--only a,b] [--markdown]
//                    [--precision float16 --tolerance 0.05]
//
// Exit status 1 when any case fails.
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "testing/conformance.h"

namespace {

constexpr char kUsage[] =
    "usage: smrt_conformance [--zoo DIR]... [--community] [--only NAME,...] [--markdown]\n"
    "                        [--device CUDA:0] [--device_policy prefer|require]\n"
    "                        [--precision float32|tf32|float16|bfloat16] [--tolerance T]\n"
    "  --zoo DIR     a folder written by scripts/make_zoo.py (repeatable)\n"
    "  --community   also run the community corpus goldens (tests/data/goldens)\n"
    "  --only        model names to run (default: all)\n"
    "  --markdown    print the table as Markdown\n"
    "  --device      run the models there (LoadOptions::device; default CPU)\n"
    "  --precision   LoadOptions::precision (docs/precision.md; default float32)\n"
    "  --tolerance   pass when |smrt - tf| <= T * max(1, |tf|), for every model\n"
    "                (default: each model's own, 1e-4 unless noted)\n";

std::string Cell(double v) { return absl::StrFormat("%.2e", v); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> zoos;
  bool community = false, markdown = false;
  std::set<std::string> only;
  smrt::LoadOptions base;
  double tolerance = 0;  // 0: each model's own
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--zoo" && i + 1 < argc) {
      zoos.push_back(argv[++i]);
    } else if (a == "--community") {
      community = true;
    } else if (a == "--device" && i + 1 < argc) {
      base.device = argv[++i];
    } else if (a == "--device_policy" && i + 1 < argc) {
      base.device_policy = argv[++i];
    } else if (a == "--precision" && i + 1 < argc) {
      base.precision = argv[++i];
    } else if (a == "--tolerance" && i + 1 < argc) {
      if (!absl::SimpleAtod(argv[++i], &tolerance) || !(tolerance > 0)) {
        std::fputs(kUsage, stderr);
        return 2;
      }
    } else if (a == "--markdown") {
      markdown = true;
    } else if (a == "--only" && i + 1 < argc) {
      for (absl::string_view n : absl::StrSplit(argv[++i], ',', absl::SkipEmpty())) {
        only.insert(std::string(n));
      }
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  std::vector<smrt::testing::ConformanceModel> models;
  for (const std::string& zoo : zoos) {
    absl::StatusOr<std::vector<smrt::testing::ConformanceModel>> z =
        smrt::testing::ListZooModels(zoo);
    if (!z.ok()) {
      std::fprintf(stderr, "smrt_conformance: %s\n", std::string(z.status().message()).c_str());
      return 2;
    }
    models.insert(models.end(), z->begin(), z->end());
  }
  if (community) {
    for (auto& m : smrt::testing::ListCommunityModels()) models.push_back(std::move(m));
  }
  const char* row = markdown ? "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n"
                             : "%-26s %-22s %-14s %6s %-6s %9s %9s %9s %9s\n";
  std::printf(row, "model", "signature", "case", "ops", "status", "max abs", "max rel",
              "load ms", "1st run ms");
  if (markdown) std::printf("|---|---|---|--:|---|--:|--:|--:|--:|\n");
  int failed = 0, passed = 0;
  std::vector<std::string> failures, notes;
  for (smrt::testing::ConformanceModel& m : models) {
    if (!only.empty() && !only.count(m.name)) continue;
    if (tolerance > 0) m.tolerance = tolerance;
    smrt::testing::ModelResult r = smrt::testing::RunConformance(m, base);
    if (tolerance == 0 && m.tolerance != 1e-4) {
      notes.push_back(absl::StrFormat("%s: tolerance %g (%s)", m.name, m.tolerance, m.note));
    }
    bool first = true;
    for (const smrt::testing::CaseResult& c : r.cases) {
      const bool ok = c.ok();
      ok ? ++passed : ++failed;
      auto n = r.nodes.find(c.c->signature);
      std::printf(row, m.name.c_str(), c.c->signature.c_str(), c.c->name.c_str(),
                  n == r.nodes.end() ? "?" : std::to_string(n->second).c_str(),
                  ok ? "ok" : "FAIL",
                  c.error.empty() ? Cell(c.comparison.max_abs).c_str() : "-",
                  c.error.empty() ? Cell(c.comparison.max_rel).c_str() : "-",
                  first ? absl::StrFormat("%.0f", r.load_ms).c_str() : "",
                  first ? absl::StrFormat("%.1f", r.first_run_ms).c_str() : "");
      first = false;
      if (!ok) {
        failures.push_back(absl::StrFormat("%s %s %s: %s", m.name, c.c->signature, c.c->name,
                                           c.error.empty() ? c.comparison.detail : c.error));
      }
    }
  }
  std::printf("\n%d passed, %d failed (tolerance: |smrt - tf| <= %g * max(1, |tf|) unless "
              "noted; max rel = max |smrt - tf| / max(1, |tf|); precision %s)\n",
              passed, failed, tolerance > 0 ? tolerance : 1e-4, base.precision.c_str());
  for (const std::string& n : notes) std::printf("note: %s\n", n.c_str());
  for (const std::string& f : failures) std::printf("FAIL %s\n", f.substr(0, 600).c_str());
  return failed == 0 ? 0 : 1;
}
