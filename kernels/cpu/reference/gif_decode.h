// GIF bytes to RGB frames, as TensorFlow's gif_io.cc decodes them with giflib (Debian's
// libgif, the library TensorFlow bundles), for the image decode kernels.
#ifndef SMRT_KERNELS_CPU_REFERENCE_GIF_DECODE_H_
#define SMRT_KERNELS_CPU_REFERENCE_GIF_DECODE_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt::kernels {

// Decodes `data`: all frames, or only the first when !all_frames. Once the frames' count and
// size are known, calls allocate(frames, height, width) for frames * height * width * 3
// bytes; its error is returned as it is. TensorFlow's canvas is the largest frame (not the
// logical screen): each frame starts as a copy of the one before (the first as black), and
// its pixels outside the canvas are dropped, its transparent ones keep what was there.
// Malformed bytes give InvalidArgument "Invalid GIF data (size N), <why>", TensorFlow's
// message; like TensorFlow, a file whose later blocks are damaged still gives the frames
// read before the damage.
absl::Status DecodeGifFrames(
    absl::string_view data, bool all_frames,
    const std::function<absl::StatusOr<uint8_t*>(int64_t frames, int64_t height, int64_t width)>&
        allocate);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_REFERENCE_GIF_DECODE_H_
