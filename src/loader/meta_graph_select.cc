#include "loader/meta_graph_select.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace smrt::loader {
namespace {

TagSet Normalize(TagSet tags) {
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  return tags;
}

}  // namespace

TagSet ParseTagSet(absl::string_view text) {
  TagSet tags;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    absl::string_view t = absl::StripAsciiWhitespace(part);
    if (!t.empty()) tags.emplace_back(t);
  }
  return Normalize(std::move(tags));
}

std::vector<TagSet> TagSets(const tfproto::SavedModel& model) {
  std::vector<TagSet> sets;
  for (const auto& mg : model.meta_graphs()) {
    const auto& tags = mg.meta_info_def().tags();
    sets.push_back(Normalize(TagSet(tags.begin(), tags.end())));
  }
  return sets;
}

std::string TagSetToString(const TagSet& tags) {
  return absl::StrCat("'", absl::StrJoin(tags, ", "), "'");
}

absl::StatusOr<const tfproto::MetaGraphDef*> SelectMetaGraph(const tfproto::SavedModel& model,
                                                             const TagSet& tags,
                                                             absl::string_view where) {
  TagSet want = Normalize(tags);
  std::vector<TagSet> present = TagSets(model);
  for (size_t i = 0; i < present.size(); ++i) {
    if (present[i] == want) return &model.meta_graphs(static_cast<int>(i));
  }
  std::vector<std::string> listed;
  for (const TagSet& t : present) listed.push_back(TagSetToString(t));
  return absl::NotFoundError(absl::StrCat(
      "SavedModel ", where, " has no MetaGraphDef with tag set ",
      TagSetToString(want), "; it has ",
      listed.empty() ? std::string("no MetaGraphDefs") : absl::StrJoin(listed, ", "),
      " (choose one with --tag_set or LoadOptions::tags)"));
}

}  // namespace smrt::loader
