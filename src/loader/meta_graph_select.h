// Choosing the MetaGraphDef of a SavedModel by its tag set.
#ifndef SMRT_LOADER_META_GRAPH_SELECT_H_
#define SMRT_LOADER_META_GRAPH_SELECT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "smrt/tfproto/saved_model.pb.h"

namespace smrt::loader {

using TagSet = std::vector<std::string>;  // sorted, unique

// "serve,gpu" or "serve, gpu" -> {"gpu", "serve"}.
TagSet ParseTagSet(absl::string_view text);

// The tag set of each MetaGraphDef, in file order, each sorted.
std::vector<TagSet> TagSets(const tfproto::SavedModel& model);

// "'gpu, serve'" — how saved_model_cli prints a tag set.
std::string TagSetToString(const TagSet& tags);

// The MetaGraphDef whose tag set equals `tags` (order and duplicates ignored).
// NotFound otherwise, listing the tag sets present; `where` names the model
// directory in the message.
absl::StatusOr<const tfproto::MetaGraphDef*> SelectMetaGraph(const tfproto::SavedModel& model,
                                                             const TagSet& tags,
                                                             absl::string_view where);

}  // namespace smrt::loader

#endif  // SMRT_LOADER_META_GRAPH_SELECT_H_
