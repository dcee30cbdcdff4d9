// DecodeJpeg, DecodePng, DecodeImage, DecodeAndCropJpeg and ExtractJpegShape
// on the CPU, as TensorFlow's DecodeImageV2Op (decode_image_op.cc, one kernel
// for all the decode ops: each decodes JPEG and PNG alike, found by their
// magic bytes) and its jpeg_mem.cc / png_io.cc. The bytes are decoded by
// Debian's libjpeg-turbo and libpng, the libraries TensorFlow bundles, set up
// with the same calls so that the pixels are TensorFlow's bit for bit: IFAST
// DCT unless asked, fancy upsampling, CMYK converted to RGB by TensorFlow's
// formula, truncated JPEGs finished with a fake EOI only when asked, palettes
// and tRNS expanded, no gamma. GIFs are decoded by giflib as TensorFlow's
// gif_io.cc does (gif_decode.h); DecodeGif gives frames [n, height, width, 3],
// as DecodeImage does with expand_animations. BMP, WebP and JPEG XL (which
// TensorFlow also decodes) are refused with Unimplemented, naming the format.
//
// Both libraries report fatal errors by longjmp. Every function that calls
// setjmp keeps its state in a job struct it gets by pointer, and no frame
// between the library's call and the setjmp owns a C++ object.

// jpeglib.h needs FILE and size_t declared before it.
#include <cstdio>
// clang-format off
#include <jpeglib.h>
#include <jerror.h>
#include <png.h>
// clang-format on

#include <algorithm>
#include <csetjmp>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "kernels/cpu/reference/gif_decode.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

enum class Format { kJpeg, kPng, kGif, kBmp, kWebp, kJxl, kUnknown };

// TensorFlow's ClassifyFileFormat: JPEG by its first three bytes.
Format Classify(absl::string_view data) {
  if (absl::StartsWith(data, "\xff\xd8\xff")) return Format::kJpeg;
  if (absl::StartsWith(data, "\x89PNG\r\n\x1a\n")) return Format::kPng;
  if (absl::StartsWith(data, "GIF8")) return Format::kGif;
  if (absl::StartsWith(data, "BM")) return Format::kBmp;
  if (data.size() > 12 && absl::StartsWith(data, "RIFF") && data.substr(8, 4) == "WEBP") {
    return Format::kWebp;
  }
  if (absl::StartsWith(data, "\xff\x0a") ||
      absl::StartsWith(data, absl::string_view("\0\0\0\x0cJXL \r\n\x87\n", 12))) {
    return Format::kJxl;
  }
  return Format::kUnknown;
}

// What the op's attrs ask for (TensorFlow's DecodeImageV2Op constructor).
struct Settings {
  std::string op;
  int channels = 0;
  DataType dtype = DataType::kUInt8;
  bool expand_animations = true;
  // jpeg::UncompressFlags; ops other than DecodeJpeg / DecodeAndCropJpeg
  // decode JPEGs with these defaults.
  int ratio = 1;
  bool fancy_upscaling = true;
  bool try_recover_truncated = false;
  float min_acceptable_fraction = 1.0f;
  J_DCT_METHOD dct_method = JDCT_IFAST;
  bool crop = false;
  int crop_y = 0, crop_x = 0, crop_height = 0, crop_width = 0;
};

absl::StatusOr<Settings> ReadSettings(const KernelContext& ctx, const std::string& op) {
  Settings s;
  s.op = op;
  const AttrMap& a = ctx.attrs();
  if (op == "DecodeJpeg" || op == "DecodeAndCropJpeg") {
    absl::StatusOr<int64_t> ratio = a.GetOr<int64_t>("ratio", 1);
    absl::StatusOr<bool> fancy = a.GetOr<bool>("fancy_upscaling", true);
    absl::StatusOr<bool> recover = a.GetOr<bool>("try_recover_truncated", false);
    absl::StatusOr<float> fraction = a.GetOr<float>("acceptable_fraction", 1.0f);
    absl::StatusOr<std::string> dct = a.GetOr<std::string>("dct_method", "");
    for (const absl::Status& st :
         {ratio.status(), fancy.status(), recover.status(), fraction.status(), dct.status()}) {
      if (!st.ok()) return st;
    }
    if (*ratio != 1 && *ratio != 2 && *ratio != 4 && *ratio != 8) {
      return absl::InvalidArgumentError(absl::StrCat("ratio must be 1, 2, 4, or 8, got ", *ratio));
    }
    if (!dct->empty() && *dct != "INTEGER_FAST" && *dct != "INTEGER_ACCURATE") {
      return absl::InvalidArgumentError(
          "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}");
    }
    s.ratio = static_cast<int>(*ratio);
    s.fancy_upscaling = *fancy;
    s.try_recover_truncated = *recover;
    s.min_acceptable_fraction = *fraction;
    // TensorFlow's default is IFAST: speed over quality.
    s.dct_method = *dct == "INTEGER_ACCURATE" ? JDCT_ISLOW : JDCT_IFAST;
  }
  if (op == "DecodePng" || op == "DecodeImage") {
    absl::StatusOr<DataType> dtype = a.GetOr<DataType>("dtype", DataType::kUInt8);
    if (!dtype.ok()) return dtype.status();
    const bool png = op == "DecodePng";
    if (*dtype != DataType::kUInt8 && *dtype != DataType::kUInt16 &&
        (png || *dtype != DataType::kFloat)) {
      return absl::InvalidArgumentError(absl::StrCat("`dtype` for `", op, "` must be uint8, uint16",
                                                     png ? "" : " or float32",
                                                     " but got: ", DataTypeName(*dtype)));
    }
    s.dtype = *dtype;
  }
  if (op == "DecodeImage") {
    absl::StatusOr<bool> expand = a.GetOr<bool>("expand_animations", true);
    if (!expand.ok()) return expand.status();
    s.expand_animations = *expand;
  }
  absl::StatusOr<int64_t> channels = a.GetOr<int64_t>("channels", 0);
  if (!channels.ok()) return channels.status();
  if (*channels != 0 && *channels != 1 && *channels != 3 && *channels != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("`channels` must be 0, 1, 3 or 4 but got ", *channels));
  }
  s.channels = static_cast<int>(*channels);
  return s;
}

std::string ShapeText(const Shape& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

// uint8 samples as the op's dtype, as TensorFlow converts them: uint16 by
// 256 (65536 / 256), float32 times 1/255.
void ConvertFrom8(const uint8_t* in, Tensor& out) {
  const int64_t n = out.num_elements();
  if (out.dtype() == DataType::kUInt16) {
    uint16_t* o = out.data<uint16_t>();
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<uint16_t>(in[i] * 256);
  } else {
    const float scale = static_cast<float>(1. / 255);
    float* o = out.data<float>();
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>(in[i]) * scale;
  }
}

// ---------------------------------------------------------------------------
// JPEG (TensorFlow's jpeg::Uncompress and jpeg_handle.cc's memory source)

// A memory source that, asked for more bytes than there are, errors, or (when
// recovering truncated files) gives a fake EOI marker. As in TensorFlow, a
// new one each time the last is used up (its check compares with the start
// of the marker); here at most 100, so that no input can loop.
struct MemorySource {
  jpeg_source_mgr pub;  // first: libjpeg sees this struct as its source
  const JOCTET* data;
  size_t size;
  bool try_recover_truncated;
  int stale_fills;  // calls while libjpeg's count was stale (see FillInputBuffer)
  int fake_eois;
};

const JOCTET kFakeEoi[2] = {0xff, JPEG_EOI};

void InitSource(j_decompress_ptr cinfo) {
  MemorySource* src = reinterpret_cast<MemorySource*>(cinfo->src);
  src->pub.next_input_byte = src->data;
  src->pub.bytes_in_buffer = src->size;
}

boolean FillInputBuffer(j_decompress_ptr cinfo) {
  MemorySource* src = reinterpret_cast<MemorySource*>(cinfo->src);
  if (src->pub.bytes_in_buffer == 0 && src->pub.next_input_byte == src->data) {
    ERREXIT(cinfo, JERR_INPUT_EMPTY);
    return FALSE;
  }
  if (src->pub.bytes_in_buffer != 0) {
    // TensorFlow takes this for corrupt data and, when recovering, returns
    // TRUE. But libjpeg calls here when its own copy of the count is 0, so
    // TRUE makes it read again from where it last synced: on some inputs
    // (b"\xff\xd8\xff") forever, where TensorFlow hangs. The same answer,
    // but an error after 100 times.
    if (!src->try_recover_truncated) return FALSE;
    if (++src->stale_fills > 100) ERREXIT(cinfo, JERR_FILE_READ);
    return TRUE;
  }
  if (src->pub.next_input_byte != kFakeEoi && src->try_recover_truncated &&
      ++src->fake_eois <= 100) {
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->pub.next_input_byte = kFakeEoi;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  ERREXIT(cinfo, JERR_FILE_READ);
  return FALSE;
}

void SkipInputData(j_decompress_ptr cinfo, long count) {  // NOLINT(runtime/int): libjpeg's type
  MemorySource* src = reinterpret_cast<MemorySource*>(cinfo->src);
  if (count < 0) return;
  if (static_cast<size_t>(count) > src->pub.bytes_in_buffer) {
    src->pub.bytes_in_buffer = 0;
    (void)FillInputBuffer(cinfo);
  } else {
    src->pub.bytes_in_buffer -= count;
    src->pub.next_input_byte += count;
  }
}

void TermSource(j_decompress_ptr) {}

// Everything a decode keeps across libjpeg's longjmp.
struct JpegJob {
  jpeg_decompress_struct cinfo;
  jpeg_error_mgr jerr;
  MemorySource src;
  std::jmp_buf jump;
  bool created = false;
  std::string error;  // libjpeg's message for a fatal error
  // The output: allocated once the size is known; `height_read` of its
  // `height` lines of `stride` bytes were decoded.
  std::function<uint8_t*(int width, int height, int components)> allocate;
  uint8_t* out = nullptr;
  int height = 0;
  int height_read = 0;
  int stride = 0;
  std::vector<JSAMPLE> scanline;  // a CMYK or MCU-aligned line before it is copied
  // ExtractJpegShape.
  int width = 0;
  int components = 0;
};

void JpegErrorExit(j_common_ptr cinfo) {
  JpegJob* job = static_cast<JpegJob*>(cinfo->client_data);
  char message[JMSG_LENGTH_MAX];
  (*cinfo->err->format_message)(cinfo, message);
  job->error = message;
  std::longjmp(job->jump, 1);
}

// TensorFlow prints libjpeg's messages; smrt returns the error instead.
void JpegQuiet(j_common_ptr) {}

void StartJpeg(JpegJob* job, absl::string_view data, bool try_recover_truncated) {
  job->cinfo.err = jpeg_std_error(&job->jerr);
  job->jerr.error_exit = JpegErrorExit;
  job->jerr.output_message = JpegQuiet;
  job->cinfo.client_data = job;
  jpeg_create_decompress(&job->cinfo);
  job->created = true;
  // A bound on libjpeg's own buffers (a progressive image's coefficients)
  // beyond which it fails rather than allocates: above what any image under
  // TensorFlow's 2^29-byte output limit needs.
  job->cinfo.mem->max_memory_to_use = 2048L * 1024 * 1024;
  job->src.pub.init_source = InitSource;
  job->src.pub.fill_input_buffer = FillInputBuffer;
  job->src.pub.skip_input_data = SkipInputData;
  job->src.pub.resync_to_restart = jpeg_resync_to_restart;
  job->src.pub.term_source = TermSource;
  job->src.pub.bytes_in_buffer = 0;
  job->src.pub.next_input_byte = nullptr;
  job->src.data = reinterpret_cast<const JOCTET*>(data.data());
  job->src.size = data.size();
  job->src.try_recover_truncated = try_recover_truncated;
  job->src.stale_fills = 0;
  job->src.fake_eois = 0;
  job->cinfo.src = &job->src.pub;
}

bool CropWindowValid(const Settings& s, JDIMENSION width, JDIMENSION height) {
  return s.crop_width > 0 && s.crop_height > 0 && s.crop_x >= 0 && s.crop_y >= 0 &&
         static_cast<int64_t>(s.crop_y) + s.crop_height <= static_cast<int64_t>(height) &&
         static_cast<int64_t>(s.crop_x) + s.crop_width <= static_cast<int64_t>(width);
}

// jpeg_mem.cc's UncompressLow: false where it returns no image.
bool UncompressLow(JpegJob* job, absl::string_view data, const Settings* s) {
  if (setjmp(job->jump)) {
    if (job->created) jpeg_destroy_decompress(&job->cinfo);
    job->created = false;
    return false;
  }
  StartJpeg(job, data, s->try_recover_truncated);
  jpeg_decompress_struct& cinfo = job->cinfo;
  jpeg_read_header(&cinfo, TRUE);
  const int components = s->channels == 0 ? std::min(cinfo.num_components, 3) : s->channels;
  if (components == 1) {
    cinfo.out_color_space = JCS_GRAYSCALE;
  } else if (components == 3) {
    // libjpeg decodes CMYK (and YCCK) to CMYK; converted to RGB below.
    const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  } else {
    jpeg_destroy_decompress(&cinfo);
    job->created = false;
    return false;
  }
  cinfo.do_fancy_upsampling = s->fancy_upscaling ? TRUE : FALSE;
  cinfo.scale_num = 1;
  cinfo.scale_denom = s->ratio;
  cinfo.dct_method = s->dct_method;
  jpeg_calc_output_dimensions(&cinfo);
  const int64_t total_size =
      static_cast<int64_t>(cinfo.output_height) * cinfo.output_width * cinfo.num_components;
  if (cinfo.output_width <= 0 || cinfo.output_height <= 0 || total_size >= (int64_t{1} << 29)) {
    jpeg_destroy_decompress(&cinfo);
    job->created = false;
    return false;
  }
  jpeg_start_decompress(&cinfo);

  JDIMENSION width = cinfo.output_width;
  JDIMENSION height = cinfo.output_height;
  JDIMENSION skipped = 0;
  if (s->crop) {
    width = s->crop_width;
    height = s->crop_height;
    if (!CropWindowValid(*s, cinfo.output_width, cinfo.output_height)) {
      jpeg_destroy_decompress(&cinfo);
      job->created = false;
      return false;
    }
    // The crop's left edge moves left to an MCU boundary (and its width grows
    // by as much): each line is realigned below.
    JDIMENSION crop_x = s->crop_x;
    JDIMENSION crop_width = s->crop_width;
    jpeg_crop_scanline(&cinfo, &crop_x, &crop_width);
    skipped = jpeg_skip_scanlines(&cinfo, s->crop_y);
    if (skipped != static_cast<JDIMENSION>(s->crop_y)) {
      jpeg_destroy_decompress(&cinfo);
      job->created = false;
      return false;
    }
  }
  const int stride = static_cast<int>(width) * components;
  job->height = static_cast<int>(height);
  job->stride = stride;
  job->out = job->allocate(static_cast<int>(width), static_cast<int>(height), components);
  if (job->out == nullptr) {
    jpeg_destroy_decompress(&cinfo);
    job->created = false;
    return false;
  }
  const bool realign = width != cinfo.output_width;
  const bool cmyk = cinfo.out_color_space == JCS_CMYK;
  if (cmyk) {
    job->scanline.resize(static_cast<size_t>(cinfo.output_width) * 4);
  } else if (realign) {
    job->scanline.resize(static_cast<size_t>(cinfo.output_width) * components);
  }
  const int align_offset = static_cast<int>(cinfo.output_width - width) * (cmyk ? 4 : components);
  const JDIMENSION last_line = skipped + height;
  bool truncated = false;
  job->height_read = static_cast<int>(height);
  uint8_t* line = job->out;
  while (cinfo.output_scanline < last_line) {
    JSAMPLE* row = (cmyk || realign) ? job->scanline.data() : line;
    const JDIMENSION read = jpeg_read_scanlines(&cinfo, &row, 1);
    if (read == 0) {
      if (!s->try_recover_truncated) {
        job->height_read = static_cast<int>(cinfo.output_scanline - skipped);
        truncated = true;
      } else {
        // The lines never read repeat the last line read (black when none).
        for (JDIMENSION l = cinfo.output_scanline; l < last_line; ++l) {
          if (line == job->out) {
            std::memset(line, 0, stride);
          } else {
            std::memcpy(line, line - stride, stride);
          }
          line += stride;
        }
        cinfo.output_scanline = last_line;  // libjpeg must not refuse to finish
      }
      break;
    }
    if (cmyk) {
      // TensorFlow's CMYK to RGB: Adobe's files store inverted CMYK.
      const JSAMPLE* p = job->scanline.data() + align_offset;
      for (JDIMENSION i = 0; i < width; ++i, p += 4) {
        const int c = p[0], m = p[1], y = p[2], k = p[3];
        if (cinfo.saw_Adobe_marker) {
          line[3 * i] = static_cast<uint8_t>(k * c / 255);
          line[3 * i + 1] = static_cast<uint8_t>(k * m / 255);
          line[3 * i + 2] = static_cast<uint8_t>(k * y / 255);
        } else {
          line[3 * i] = static_cast<uint8_t>((255 - k) * (255 - c) / 255);
          line[3 * i + 1] = static_cast<uint8_t>((255 - k) * (255 - m) / 255);
          line[3 * i + 2] = static_cast<uint8_t>((255 - k) * (255 - y) / 255);
        }
      }
    } else if (realign) {
      std::memcpy(line, job->scanline.data() + align_offset, stride);
    }
    line += stride;
  }
  if (s->crop && cinfo.output_scanline < cinfo.output_height) {
    // libjpeg finishes only once every line is read or skipped.
    jpeg_skip_scanlines(&cinfo, cinfo.output_height - s->crop_y - s->crop_height);
  }
  // A conversion libjpeg did not make is not an error (as in TensorFlow), but
  // libjpeg is then not asked to finish.
  const bool bad_param = static_cast<int>(cinfo.output_components) != (cmyk ? 4 : components);
  if (truncated || bad_param) {
    jpeg_abort(reinterpret_cast<j_common_ptr>(&cinfo));
  } else {
    jpeg_finish_decompress(&cinfo);
  }
  jpeg_destroy_decompress(&cinfo);
  job->created = false;
  return true;
}

// jpeg::Uncompress: the image, with lines past a premature end black, if at
// least `min_acceptable_fraction` of it was read.
bool Uncompress(JpegJob* job, absl::string_view data, const Settings& s) {
  if (!UncompressLow(job, data, &s)) return false;
  const float fraction =
      job->height == 0 ? 1.0f : static_cast<float>(job->height_read) / job->height;
  if (fraction < std::min(1.0f, s.min_acceptable_fraction)) return false;
  if (job->height_read != job->height) {
    std::memset(job->out + static_cast<int64_t>(job->height_read) * job->stride, 0,
                static_cast<size_t>(job->height - job->height_read) * job->stride);
  }
  return true;
}

// jpeg::GetImageInfo: the size and components libjpeg would decode to.
bool JpegInfo(JpegJob* job, absl::string_view data) {
  if (setjmp(job->jump)) {
    if (job->created) jpeg_destroy_decompress(&job->cinfo);
    job->created = false;
    return false;
  }
  StartJpeg(job, data, false);
  jpeg_read_header(&job->cinfo, TRUE);
  jpeg_start_decompress(&job->cinfo);  // sets the output size
  job->width = static_cast<int>(job->cinfo.output_width);
  job->height = static_cast<int>(job->cinfo.output_height);
  job->components = job->cinfo.output_components;
  jpeg_destroy_decompress(&job->cinfo);
  job->created = false;
  return true;
}

absl::Status DecodeJpeg(KernelContext& ctx, const Settings& settings, absl::string_view data) {
  if (settings.channels == 4) return absl::InvalidArgumentError("JPEG does not support 4 channels");
  Settings s = settings;
  if (s.op == "DecodeAndCropJpeg") {
    const Tensor& window = ctx.input(1);
    if (window.shape().size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("crop_window must be 1-D, got shape ", ShapeText(window.shape())));
    }
    if (window.shape()[0] != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("crop_size must have four elements ", ShapeText(window.shape())));
    }
    if (window.dtype() != DataType::kInt32) {
      return absl::InvalidArgumentError(
          absl::StrCat("crop_window must be int32, got ", DataTypeName(window.dtype())));
    }
    const int32_t* w = window.data<int32_t>();
    s.crop = true;
    s.crop_y = w[0];
    s.crop_x = w[1];
    s.crop_height = w[2];
    s.crop_width = w[3];
  }
  Tensor* output = nullptr;
  absl::Status allocated;
  std::vector<uint8_t> samples;  // for dtypes other than uint8
  JpegJob job;
  job.allocate = [&](int width, int height, int components) -> uint8_t* {
    absl::StatusOr<Tensor*> o = ctx.allocate_output(0, s.dtype, {height, width, components});
    if (!o.ok()) {
      allocated = o.status();
      return nullptr;
    }
    output = *o;
    if (s.dtype == DataType::kUInt8) return output->data<uint8_t>();
    samples.resize(static_cast<size_t>(height) * width * components);
    return samples.data();
  };
  if (!Uncompress(&job, data, s)) {
    if (!allocated.ok()) return allocated;
    return absl::InvalidArgumentError("jpeg::Uncompress failed. Invalid JPEG data or crop window.");
  }
  if (s.dtype != DataType::kUInt8) ConvertFrom8(samples.data(), *output);
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// PNG (TensorFlow's png::CommonInitDecode / CommonFinishDecode)

struct PngJob {
  png_structp png = nullptr;
  png_infop info = nullptr;
  const uint8_t* data = nullptr;
  size_t left = 0;
  bool error = false;
  png_uint_32 width = 0;
  png_uint_32 height = 0;
  int bit_depth = 0;
  int color_type = 0;
  int channels = 0;
  bool synthesize_16 = false;  // 8-bit samples asked for as 16
  int passes = 1;

  ~PngJob() {
    if (png != nullptr) png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
  }
};

void PngError(png_structp png, png_const_charp) {
  static_cast<PngJob*>(png_get_error_ptr(png))->error = true;
  png_longjmp(png, 1);
}

void PngWarning(png_structp, png_const_charp) {}

void PngRead(png_structp png, png_bytep out, png_size_t length) {
  PngJob* job = static_cast<PngJob*>(png_get_io_ptr(png));
  if (job->left < length) png_error(png, "More bytes requested to read than available");
  std::memcpy(out, job->data, length);
  job->data += length;
  job->left -= length;
}

// Reads the header and sets libpng's transformations to give
// `desired_channels` (0: the image's own) of `desired_bits` bits.
bool PngInit(PngJob* job, absl::string_view data, int desired_channels, int desired_bits) {
  job->channels = desired_channels;
  job->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, job, PngError, PngWarning);
  if (job->png == nullptr) return false;
  if (setjmp(png_jmpbuf(job->png))) return false;
  job->info = png_create_info_struct(job->png);
  if (job->info == nullptr || job->error) return false;
  job->data = reinterpret_cast<const uint8_t*>(data.data());
  job->left = data.size();
  png_set_read_fn(job->png, job, PngRead);
  png_read_info(job->png, job->info);
  png_get_IHDR(job->png, job->info, &job->width, &job->height, &job->bit_depth, &job->color_type,
               nullptr, nullptr, nullptr);
  if (job->error || job->width == 0 || job->height == 0) return false;
  const bool has_trns = png_get_valid(job->png, job->info, PNG_INFO_tRNS) != 0;
  if (job->channels == 0) {
    job->channels = job->color_type == PNG_COLOR_TYPE_PALETTE
                        ? (has_trns ? 4 : 3)
                        : png_get_channels(job->png, job->info);
  }
  const bool has_alpha = (job->color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if (job->channels % 2 == 0) {  // alpha wanted
    if (!has_alpha) {
      if (has_trns) {
        png_set_tRNS_to_alpha(job->png);
      } else {
        png_set_add_alpha(job->png, (1 << job->bit_depth) - 1, PNG_FILLER_AFTER);
      }
    }
  } else if (has_alpha || has_trns) {
    png_set_strip_alpha(job->png);
  }
  if (job->bit_depth > 8 && desired_bits <= 8) png_set_strip_16(job->png);
  job->synthesize_16 = job->bit_depth <= 8 && desired_bits == 16;
  png_set_packing(job->png);
  job->passes = png_set_interlace_handling(job->png);
  if (desired_bits > 8 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) png_set_swap(job->png);
  if (job->color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(job->png);
  const bool want_gray = job->channels < 3;
  const bool is_gray = (job->color_type & PNG_COLOR_MASK_COLOR) == 0;
  if (is_gray && job->bit_depth < 8) png_set_expand_gray_1_2_4_to_8(job->png);
  if (want_gray && !is_gray) {
    png_set_rgb_to_gray(job->png, 1, 0.299, 0.587);  // BT.601, as JPEG
  } else if (!want_gray && is_gray) {
    png_set_gray_to_rgb(job->png);
  }
  png_read_update_info(job->png, job->info);
  return true;
}

// Reads every pass of every row into `out` (rows of `row_bytes`).
bool PngFinish(PngJob* job, uint8_t* out, size_t row_bytes) {
  if (setjmp(png_jmpbuf(job->png))) return false;
  for (int pass = 0; pass < job->passes; ++pass) {
    uint8_t* row = out;
    for (png_uint_32 y = 0; y < job->height; ++y, row += row_bytes) {
      png_read_row(job->png, row, nullptr);
    }
  }
  png_set_rows(job->png, job->info, png_get_rows(job->png, job->info));
  png_read_end(job->png, job->info);
  return !job->error;
}

absl::Status DecodePng(KernelContext& ctx, const Settings& s, absl::string_view data) {
  PngJob job;
  if (!PngInit(&job, data, s.channels, s.dtype == DataType::kUInt8 ? 8 : 16)) {
    return absl::InvalidArgumentError("Invalid PNG. Failed to initialize decoder.");
  }
  const int64_t width = job.width;
  const int64_t height = job.height;
  if (width >= (int64_t{1} << 27) || height >= (int64_t{1} << 27) ||
      width * height >= (int64_t{1} << 29)) {
    return absl::InvalidArgumentError(
        absl::StrCat("PNG size too large for int: ", job.width, " by ", job.height));
  }
  absl::StatusOr<Tensor*> output = ctx.allocate_output(0, s.dtype, {height, width, job.channels});
  if (!output.ok()) return output.status();
  if (s.op == "DecodeAndCropJpeg") {
    return absl::InvalidArgumentError(
        "DecodeAndCropJpeg operation can run on JPEG only, but detected PNG.");
  }
  const absl::Status invalid =
      absl::InvalidArgumentError(absl::StrCat("Invalid PNG data, size ", data.size()));
  const size_t samples = static_cast<size_t>(width * height * job.channels);
  const size_t row_samples = static_cast<size_t>(width * job.channels);
  if (s.dtype == DataType::kUInt8) {
    if (!PngFinish(&job, (*output)->data<uint8_t>(), row_samples)) return invalid;
    return absl::OkStatus();
  }
  std::vector<uint16_t> wide;
  uint16_t* out16 = nullptr;
  if (s.dtype == DataType::kUInt16) {
    out16 = (*output)->data<uint16_t>();
  } else {
    wide.resize(samples);
    out16 = wide.data();
  }
  if (job.synthesize_16) {
    // 8-bit samples v become v * 257 (v in both bytes), as TensorFlow's Convert8to16.
    std::vector<uint8_t> narrow(samples);
    if (!PngFinish(&job, narrow.data(), row_samples)) return invalid;
    for (size_t i = 0; i < samples; ++i) out16[i] = static_cast<uint16_t>(narrow[i] * 257);
  } else if (!PngFinish(&job, reinterpret_cast<uint8_t*>(out16), row_samples * 2)) {
    return invalid;
  }
  if (s.dtype == DataType::kFloat) {
    const float scale = static_cast<float>(1. / 65535);
    float* o = (*output)->data<float>();
    for (size_t i = 0; i < samples; ++i) o[i] = static_cast<float>(out16[i]) * scale;
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------

absl::Status Unsupported(absl::string_view format) {
  return absl::UnimplementedError(
      absl::StrCat(format,
                   " images are not supported by smrt (it decodes JPEG, PNG and GIF, with "
                   "libjpeg-turbo, libpng and giflib); convert them to PNG or JPEG before sending "
                   "them to the model"));
}

// GIF as TensorFlow's DecodeImageV2Op::DecodeGifV2: DecodeGif and DecodeImage with
// expand_animations give every frame, [frames, height, width, 3]; DecodeImage without it
// the first frame; DecodePng and DecodeJpeg a GIF of one frame only.
absl::Status DecodeGif(KernelContext& ctx, const Settings& s, absl::string_view data) {
  const bool one_image_op = s.op == "DecodePng" || s.op == "DecodeJpeg";
  const bool frames_out = s.op == "DecodeGif" || (s.op == "DecodeImage" && s.expand_animations);
  Tensor* output = nullptr;
  std::vector<uint8_t> narrow;  // the 8-bit frames when the output is uint16 or float
  absl::Status status = DecodeGifFrames(
      data, one_image_op || frames_out,
      [&](int64_t frames, int64_t height, int64_t width) -> absl::StatusOr<uint8_t*> {
        if (one_image_op && frames != 1) {
          return absl::InvalidArgumentError(
              absl::StrCat("Got ", frames, " frames, but animated gifs can only be decoded by "
                           "tf.io.decode_gif or tf.io.decode_image"));
        }
        Shape shape = {height, width, 3};
        if (frames_out) shape.insert(shape.begin(), frames);
        absl::StatusOr<Tensor*> t = ctx.allocate_output(0, s.dtype, shape);
        if (!t.ok()) return t.status();
        output = *t;
        if (s.dtype == DataType::kUInt8) return output->data<uint8_t>();
        narrow.resize(static_cast<size_t>(output->num_elements()));
        return narrow.data();
      });
  if (!status.ok()) return status;
  if (s.dtype != DataType::kUInt8) ConvertFrom8(narrow.data(), *output);
  return absl::OkStatus();
}

absl::StatusOr<absl::string_view> Contents(const KernelContext& ctx, const char* scalar_message) {
  const Tensor& contents = ctx.input(0);
  if (contents.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("contents must be a string, got ", DataTypeName(contents.dtype())));
  }
  if (!contents.shape().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(scalar_message, ShapeText(contents.shape())));
  }
  return absl::string_view(contents.data<std::string>()[0]);
}

absl::Status ComputeDecode(KernelContext& ctx, const std::string& op) {
  absl::StatusOr<Settings> s = ReadSettings(ctx, op);
  if (!s.ok()) return s.status();
  absl::StatusOr<absl::string_view> data = Contents(ctx, "`contents` must be scalar but got shape");
  if (!data.ok()) return data.status();
  if (data->empty()) return absl::InvalidArgumentError("Input is empty.");
  if (data->size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input contents are too large for int: ", data->size()));
  }
  const bool crop = op == "DecodeAndCropJpeg";
  switch (Classify(*data)) {
    case Format::kJpeg:
    case Format::kPng: {
      const absl::Status st = Classify(*data) == Format::kJpeg ? DecodeJpeg(ctx, *s, *data)
                                                               : DecodePng(ctx, *s, *data);
      if (!st.ok() || op != "DecodeGif") return st;
      // DecodeGif gives a JPEG or PNG as one frame, [1, height, width, channels].
      Shape frames = ctx.output(0).shape();
      frames.insert(frames.begin(), 1);
      absl::StatusOr<Tensor> framed = ctx.output(0).Reshaped(std::move(frames));
      if (!framed.ok()) return framed.status();
      ctx.set_output(0, *std::move(framed));
      return absl::OkStatus();
    }
    case Format::kGif:
      if (s->channels != 0 && s->channels != 3) {
        return absl::InvalidArgumentError(
            absl::StrCat("channels must be 0 or 3 for GIF, got ", s->channels));
      }
      if (crop) {
        return absl::InvalidArgumentError(
            "DecodeAndCropJpeg operation can run on JPEG only, but detected GIF.");
      }
      return DecodeGif(ctx, *s, *data);
    case Format::kBmp:
      if (s->channels == 1) {
        return absl::InvalidArgumentError("`channels` must be 0, 3 or 4 for BMP, but got 1");
      }
      if (crop) {
        return absl::InvalidArgumentError(
            "DecodeAndCropJpeg operation can run on JPEG only, but detected BMP.");
      }
      if (op != "DecodeImage") {
        return absl::InvalidArgumentError(absl::StrCat(
            "Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` "
            "instead. Op used: ",
            op));
      }
      return Unsupported("BMP");
    case Format::kWebp:
      return Unsupported("WebP");
    case Format::kJxl:
      return Unsupported("JPEG XL");
    case Format::kUnknown:
      break;
  }
  return absl::InvalidArgumentError(
      "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.");
}

absl::Status ComputeExtractJpegShape(KernelContext& ctx) {
  absl::StatusOr<DataType> type = ctx.attrs().GetOr<DataType>("output_type", DataType::kInt32);
  if (!type.ok()) return type.status();
  absl::StatusOr<absl::string_view> data = Contents(ctx, "contents must be scalar, got shape ");
  if (!data.ok()) return data.status();
  JpegJob job;
  if (data->empty() || !JpegInfo(&job, *data)) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid JPEG data, size ", data->size()));
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *type, {3});
  if (!out.ok()) return out.status();
  const int64_t shape[3] = {job.height, job.width, job.components};
  for (int i = 0; i < 3; ++i) {
    if (*type == DataType::kInt64) {
      (*out)->data<int64_t>()[i] = shape[i];
    } else {
      (*out)->data<int32_t>()[i] = static_cast<int32_t>(shape[i]);
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterImageDecodeOps(KernelRegistry& r) {
  for (const char* op :
       {"DecodeJpeg", "DecodePng", "DecodeImage", "DecodeAndCropJpeg", "DecodeGif"}) {
    r.AddKernel({op, kCpu, "", {}, [name = std::string(op)](KernelContext& ctx) {
                   return ComputeDecode(ctx, name);
                 }});
  }
  r.AddKernel({"ExtractJpegShape", kCpu, "", {}, ComputeExtractJpegShape});
}

}  // namespace smrt::kernels
