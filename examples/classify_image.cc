// Classifies a PNG or JPEG with an image model: decodes the file (libpng or
// libjpeg), resizes it to the size the signature's input asks for, runs the
// signature and prints the top-5 classes.
//
//   classify_image MODEL_DIR IMAGE [--signature KEY] [--scale S]
//
// The input may be NHWC images (a Keras image model, e.g. [-1, 96, 96, 3]) or
// flattened square grayscale images (the digits demo model, [-1, 64] = 8x8).
// Pixels are divided by 255 and multiplied by --scale (default 1: [0, 1];
// --scale 255 for models that expect raw 0-255 values).
#include <cstddef>
#include <cstdio>  // jpeglib.h needs size_t and FILE declared first

#include <jpeglib.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "smrt/model.h"

namespace {

struct Image {
  int width = 0, height = 0, channels = 0;  // channels: 1 (gray) or 3 (RGB)
  std::vector<uint8_t> pixels;               // row-major, interleaved
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); });
}

bool ReadPng(const std::string& path, Image* out, std::string* error) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) {
    *error = image.message;
    return false;
  }
  const bool gray = (image.format & PNG_FORMAT_FLAG_COLOR) == 0;
  image.format = gray ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  out->width = static_cast<int>(image.width);
  out->height = static_cast<int>(image.height);
  out->channels = gray ? 1 : 3;
  out->pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out->pixels.data(), 0, nullptr)) {
    *error = image.message;
    png_image_free(&image);
    return false;
  }
  return true;
}

bool ReadJpeg(const std::string& path, Image* out, std::string* error) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = "cannot open " + path;
    return false;
  }
  jpeg_decompress_struct cinfo;
  jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  // libjpeg's default error handler exits the process on corrupt data; a real
  // application would install a longjmp handler here.
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, f);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(&cinfo);
  out->width = static_cast<int>(cinfo.output_width);
  out->height = static_cast<int>(cinfo.output_height);
  out->channels = cinfo.output_components;
  out->pixels.resize(static_cast<size_t>(out->width) * out->height * out->channels);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out->pixels.data() +
                   static_cast<size_t>(cinfo.output_scanline) * out->width * out->channels;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  std::fclose(f);
  return true;
}

// Area-average resize to w x h with `channels` output channels (gray <-> RGB
// converted), values scaled to [0, scale].
std::vector<float> Resize(const Image& in, int w, int h, int channels, float scale) {
  std::vector<float> out(static_cast<size_t>(w) * h * channels);
  for (int y = 0; y < h; ++y) {
    const int y0 = y * in.height / h, y1 = std::max(y0 + 1, (y + 1) * in.height / h);
    for (int x = 0; x < w; ++x) {
      const int x0 = x * in.width / w, x1 = std::max(x0 + 1, (x + 1) * in.width / w);
      double sum[3] = {0, 0, 0};
      for (int sy = y0; sy < y1; ++sy) {
        for (int sx = x0; sx < x1; ++sx) {
          const uint8_t* p = &in.pixels[(static_cast<size_t>(sy) * in.width + sx) * in.channels];
          for (int c = 0; c < 3; ++c) sum[c] += p[in.channels == 1 ? 0 : c];
        }
      }
      const double n = static_cast<double>(y1 - y0) * (x1 - x0);
      float* q = &out[(static_cast<size_t>(y) * w + x) * channels];
      if (channels == 1) {
        q[0] = static_cast<float>((sum[0] + sum[1] + sum[2]) / (3 * n) / 255.0 * scale);
      } else {
        for (int c = 0; c < channels; ++c) q[c] = static_cast<float>(sum[c] / n / 255.0 * scale);
      }
    }
  }
  return out;
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "classify_image: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: classify_image MODEL_DIR IMAGE [--signature KEY] [--scale S]\n");
    return 2;
  }
  const std::string dir = argv[1], path = argv[2];
  std::string key = "serving_default";
  float scale = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--signature") key = argv[i + 1];
    if (std::string(argv[i]) == "--scale") scale = std::stof(argv[i + 1]);
  }

  Image image;
  std::string error;
  const bool ok = EndsWith(path, ".png") ? ReadPng(path, &image, &error)
                  : (EndsWith(path, ".jpg") || EndsWith(path, ".jpeg"))
                      ? ReadJpeg(path, &image, &error)
                      : (error = "not a .png, .jpg or .jpeg file", false);
  if (!ok) return Fail(path + ": " + error);

  smrt::LoadOptions options;
  options.signatures = {key};
  absl::StatusOr<std::unique_ptr<smrt::Model>> model = smrt::Model::Load(dir, options);
  if (!model.ok()) return Fail(std::string(model.status().message()));
  const smrt::SignatureInfo* sig = *(*model)->signature(key);
  if (sig->inputs.size() != 1) return Fail("the signature must take exactly one input");
  const smrt::TensorSpec& in = sig->inputs[0];
  if (in.dtype != smrt::DataType::kFloat) return Fail("the input must be float32");

  // The size the model wants: NHWC, or N x (side*side) grayscale.
  int w = 0, h = 0, c = 0;
  smrt::Shape shape;
  if (in.known_rank && in.shape.size() == 4 && in.shape[1] > 0 && in.shape[2] > 0 &&
      (in.shape[3] == 1 || in.shape[3] == 3)) {
    h = static_cast<int>(in.shape[1]);
    w = static_cast<int>(in.shape[2]);
    c = static_cast<int>(in.shape[3]);
    shape = {1, h, w, c};
  } else if (in.known_rank && in.shape.size() == 2 && in.shape[1] > 0) {
    const int side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(in.shape[1]))));
    if (side * side != in.shape[1]) return Fail("a flat input must be a square image");
    w = h = side;
    c = 1;
    shape = {1, side * side};
  } else {
    return Fail("cannot tell the image size from input '" + in.name + "' " + in.ShapeString());
  }
  std::vector<float> pixels = Resize(image, w, h, c, scale);
  absl::StatusOr<smrt::Tensor> x = smrt::Tensor::View(smrt::DataType::kFloat, shape,
                                                      pixels.data(), pixels.size() * 4);
  if (!x.ok()) return Fail(std::string(x.status().message()));

  absl::StatusOr<smrt::NamedTensors> out = (*model)->Run(key, {{in.name, *x}});
  if (!out.ok()) return Fail(std::string(out.status().message()));
  const smrt::Tensor& scores = out->begin()->second;
  if (scores.dtype() != smrt::DataType::kFloat || scores.rank() != 2) {
    return Fail("the first output is not float32 [1, classes]");
  }
  std::vector<int> order(scores.dim(1));
  std::iota(order.begin(), order.end(), 0);
  const float* s = scores.data<float>();
  const size_t k = std::min<size_t>(5, order.size());
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [s](int a, int b) { return s[a] > s[b]; });
  std::printf("%s: %dx%d %s -> %dx%dx%d, output '%s'\n", path.c_str(), image.width, image.height,
              image.channels == 1 ? "gray" : "RGB", w, h, c, out->begin()->first.c_str());
  for (size_t i = 0; i < k; ++i) std::printf("  class %3d  %.4f\n", order[i], s[order[i]]);
  return 0;
}
