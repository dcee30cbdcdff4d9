// QuantizeAndDequantizeV2/V3/V4: the fake quantization that quantization-
// aware training exports leave in a SavedModel. The output has the input's
// dtype and shape; the kernel checks the ranges and attrs (TensorFlow checks
// them at run time too, with the messages the kernel gives).
#include <string>

#include "absl/status/status.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {

void RegisterQuantizeDequantizeOps(OpRegistry& r) {
  for (const char* op : {"QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"}) {
    r.AddOp({op,
             {{"signed_input", AttrValue(true)},
              {"num_bits", AttrValue(int64_t{8})},
              {"range_given", AttrValue(false)},
              {"round_mode", AttrValue(std::string("HALF_TO_EVEN"))},
              {"narrow_range", AttrValue(false)},
              {"axis", AttrValue(int64_t{-1})}},
             UnchangedShape});
  }
  r.AddOp({"QuantizeAndDequantizeV3",
           {{"signed_input", AttrValue(true)},
            {"range_given", AttrValue(true)},
            {"narrow_range", AttrValue(false)},
            {"axis", AttrValue(int64_t{-1})}},
           UnchangedShape});
}

}  // namespace smrt::ops
