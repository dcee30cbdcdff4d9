#include "kernels/cpu/reference/gif_decode.h"

#include <gif_lib.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"

namespace smrt::kernels {
namespace {

struct Input {
  const uint8_t* next;
  int64_t left;
};

int ReadInput(GifFileType* gif, GifByteType* buf, int size) {
  Input* in = static_cast<Input*>(gif->UserData);
  if (in == nullptr || size <= 0) return 0;
  const int n = static_cast<int>(std::min<int64_t>(size, in->left));
  std::memcpy(buf, in->next, static_cast<size_t>(n));
  in->next += n;
  in->left -= n;
  return n;
}

const char* ErrorText(int code) {
  const char* text = GifErrorString(code);
  return text == nullptr ? "Unknown error" : text;
}

// giflib's DGifSlurp (5.2.1), step by step, so that it is known whether the last image's
// pixels were all read when the data breaks off: TensorFlow keeps the frames read whole.
// The image that was being read stays in SavedImages (DGifCloseFile frees it).
int Slurp(GifFileType* gif, bool* last_whole) {
  GifRecordType type;
  do {
    if (DGifGetRecordType(gif, &type) == GIF_ERROR) return GIF_ERROR;
    if (type == IMAGE_DESC_RECORD_TYPE) {
      *last_whole = false;
      if (DGifGetImageDesc(gif) == GIF_ERROR) return GIF_ERROR;
      SavedImage* image = &gif->SavedImages[gif->ImageCount - 1];
      const int w = image->ImageDesc.Width;
      const int h = image->ImageDesc.Height;
      if (w <= 0 || h <= 0 || w > INT_MAX / h) return GIF_ERROR;
      // An LZW code is at least 3 bits and stands for at most 4096 pixels, so what is left
      // of the data holds at most 10923 pixels a byte: a frame larger than that cannot be
      // read whole. Fail as reading it would (giflib's read error) without allocating it.
      const int64_t left = static_cast<const Input*>(gif->UserData)->left;
      if (int64_t{w} * h > (left + 1) * 10923 + 4096) {
        gif->Error = D_GIF_ERR_READ_FAILED;
        return GIF_ERROR;
      }
      image->RasterBits = static_cast<GifPixelType*>(malloc(static_cast<size_t>(w) * h));
      if (image->RasterBits == nullptr) return GIF_ERROR;
      if (image->ImageDesc.Interlace) {
        static constexpr int kStart[] = {0, 4, 2, 1};
        static constexpr int kStep[] = {8, 8, 4, 2};
        for (int pass = 0; pass < 4; ++pass) {
          for (int y = kStart[pass]; y < h; y += kStep[pass]) {
            if (DGifGetLine(gif, image->RasterBits + static_cast<size_t>(y) * w, w) == GIF_ERROR) {
              return GIF_ERROR;
            }
          }
        }
      } else if (DGifGetLine(gif, image->RasterBits, w * h) == GIF_ERROR) {
        return GIF_ERROR;
      }
      if (gif->ExtensionBlocks != nullptr) {  // the extensions before it are the image's
        image->ExtensionBlocks = gif->ExtensionBlocks;
        image->ExtensionBlockCount = gif->ExtensionBlockCount;
        gif->ExtensionBlocks = nullptr;
        gif->ExtensionBlockCount = 0;
      }
      *last_whole = true;
    } else if (type == EXTENSION_RECORD_TYPE) {
      int code = 0;
      GifByteType* block = nullptr;
      if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return GIF_ERROR;
      if (block != nullptr && GifAddExtensionBlock(&gif->ExtensionBlockCount, &gif->ExtensionBlocks,
                                                   code, block[0], &block[1]) == GIF_ERROR) {
        return GIF_ERROR;
      }
      for (;;) {
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return GIF_ERROR;
        if (block == nullptr) break;
        if (GifAddExtensionBlock(&gif->ExtensionBlockCount, &gif->ExtensionBlocks,
                                 CONTINUE_EXT_FUNC_CODE, block[0], &block[1]) == GIF_ERROR) {
          return GIF_ERROR;
        }
      }
    }
  } while (type != TERMINATE_RECORD_TYPE);
  if (gif->ImageCount == 0) {
    gif->Error = D_GIF_ERR_NO_IMAG_DSCR;
    return GIF_ERROR;
  }
  return GIF_OK;
}

struct CloseGif {
  void operator()(GifFileType* gif) const {
    int error = D_GIF_SUCCEEDED;
    DGifCloseFile(gif, &error);
  }
};

}  // namespace

absl::Status DecodeGifFrames(
    absl::string_view data, bool all_frames,
    const std::function<absl::StatusOr<uint8_t*>(int64_t frames, int64_t height, int64_t width)>&
        allocate) {
  auto invalid = [&data](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid GIF data (size ", data.size(), "), ", why));
  };
  Input in{reinterpret_cast<const uint8_t*>(data.data()), static_cast<int64_t>(data.size())};
  int error = D_GIF_SUCCEEDED;
  std::unique_ptr<GifFileType, CloseGif> gif(DGifOpen(&in, ReadInput, &error));
  if (gif == nullptr || error != D_GIF_SUCCEEDED) {
    return invalid(absl::StrCat("failed to open gif file: ", ErrorText(error)));
  }
  bool last_whole = true;
  int64_t count = 0;  // the frames TensorFlow decodes
  if (Slurp(gif.get(), &last_whole) != GIF_OK) {
    // TensorFlow goes on with the whole frames read before the damage, unless there are
    // none or the data ended early.
    count = gif->ImageCount - (last_whole ? 0 : 1);
    if (count <= 0 || gif->Error == D_GIF_ERR_EOF_TOO_SOON) {
      return invalid(absl::StrCat("failed to slurp gif file: ", ErrorText(gif->Error)));
    }
  } else {
    count = gif->ImageCount;
  }
  if (count <= 0) return invalid("gif file does not contain any image");
  int64_t width = 0;
  int64_t height = 0;
  for (int64_t k = 0; k < count; ++k) {
    width = std::max<int64_t>(width, gif->SavedImages[k].ImageDesc.Width);
    height = std::max<int64_t>(height, gif->SavedImages[k].ImageDesc.Height);
  }
  const int64_t frames = all_frames ? count : 1;
  absl::StatusOr<uint8_t*> out = allocate(frames, height, width);
  if (!out.ok()) return out.status();
  const int64_t frame_bytes = width * height * 3;
  for (int64_t k = 0; k < frames; ++k) {
    uint8_t* dst = *out + k * frame_bytes;
    const SavedImage& image = gif->SavedImages[k];
    const GifImageDesc& desc = image.ImageDesc;
    GraphicsControlBlock gcb;
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    DGifSavedExtensionToGCB(gif.get(), static_cast<int>(k), &gcb);
    if (k > 0) {
      std::memcpy(dst, dst - frame_bytes, static_cast<size_t>(frame_bytes));
    } else {
      std::memset(dst, 0, static_cast<size_t>(frame_bytes));
    }
    const int64_t left = std::max<int64_t>(desc.Left, 0);
    const int64_t top = std::max<int64_t>(desc.Top, 0);
    const int64_t right = std::min<int64_t>(int64_t{desc.Left} + desc.Width, width);
    const int64_t bottom = std::min<int64_t>(int64_t{desc.Top} + desc.Height, height);
    const ColorMapObject* colors = desc.ColorMap != nullptr ? desc.ColorMap : gif->SColorMap;
    if (colors == nullptr) return invalid(absl::StrCat("missing color map for frame ", k));
    if (image.RasterBits == nullptr) return invalid(absl::StrCat("no pixels in frame ", k));
    for (int64_t i = top; i < bottom; ++i) {
      uint8_t* row = dst + i * width * 3;
      for (int64_t j = left; j < right; ++j) {
        const GifByteType index = image.RasterBits[(i - desc.Top) * desc.Width + (j - desc.Left)];
        if (index == gcb.TransparentColor) continue;  // the frame before shows (black first)
        if (index >= colors->ColorCount) {
          return invalid(absl::StrCat("found color index ", index, " outside of color map range ",
                                      colors->ColorCount));
        }
        row[3 * j] = colors->Colors[index].Red;
        row[3 * j + 1] = colors->Colors[index].Green;
        row[3 * j + 2] = colors->Colors[index].Blue;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace smrt::kernels
