// EncodePng, EncodeJpeg and EncodeJpegVariableQuality on the CPU, as TensorFlow's
// encode_png_op.cc / encode_jpeg_op.cc and its png_io.cc / jpeg_mem.cc: the bytes are
// written by Debian's libpng and libjpeg-turbo, the libraries TensorFlow bundles, set up with
// the same calls in the same order (zlib's default level unless asked and memory level 9,
// 16-bit samples byte-swapped; jpeg_set_defaults, the quality forced to baseline tables,
// simple progression, 4:4:4 when chroma_downsampling is off, JFIF density, XMP in an APP1
// marker after Adobe's namespace), so that the bytes are TensorFlow's.
//
// Both libraries report fatal errors by longjmp. Every function that calls setjmp keeps its
// state in a job struct it gets by pointer, and no frame between the library's call and the
// setjmp owns a C++ object (as in image_decode_ops.cc).

// jpeglib.h needs FILE and size_t declared before it.
#include <cstdio>
// clang-format off
#include <jpeglib.h>
#include <png.h>
#include <zlib.h>
// clang-format on

#include <csetjmp>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/registry.h"
#include "ops/shape_text.h"

namespace smrt::kernels {
namespace {

using ops::TfShapeText;

// ---- PNG ----

struct PngWriteJob {
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::string* out = nullptr;
  const uint8_t* pixels = nullptr;
  int64_t row_bytes = 0;
  uint32_t width = 0;
  uint32_t height = 0;
  int channels = 0;
  int bits = 8;
  int compression = -1;
};

void PngWrite(png_structp png, png_bytep data, size_t n) {
  static_cast<PngWriteJob*>(png_get_io_ptr(png))->out->append(reinterpret_cast<char*>(data), n);
}
void PngFlush(png_structp) {}
void PngWriteError(png_structp png, png_const_charp) { png_longjmp(png, 1); }
void PngWriteWarning(png_structp, png_const_charp) {}

// False where libpng refuses (an empty image, say). The caller destroys job->png.
bool WritePng(PngWriteJob* job) {
  job->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, job, PngWriteError, PngWriteWarning);
  if (job->png == nullptr) return false;
  if (setjmp(png_jmpbuf(job->png))) return false;
  job->info = png_create_info_struct(job->png);
  if (job->info == nullptr) return false;
  png_set_write_fn(job->png, job, PngWrite, PngFlush);
  png_set_compression_level(job->png,
                            job->compression < 0 ? Z_DEFAULT_COMPRESSION : job->compression);
  png_set_compression_mem_level(job->png, MAX_MEM_LEVEL);
  static constexpr int kColor[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                   PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_IHDR(job->png, job->info, job->width, job->height, job->bits, kColor[job->channels],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(job->png, job->info);
  if (job->bits > 8) png_set_swap(job->png);  // host (little-endian) order to PNG's
  for (uint32_t y = 0; y < job->height; ++y) {
    png_write_row(job->png, const_cast<png_bytep>(job->pixels + y * job->row_bytes));
  }
  png_write_end(job->png, nullptr);
  return true;
}

absl::Status ComputeEncodePng(KernelContext& ctx) {
  const Tensor& image = ctx.input(0);
  absl::StatusOr<int64_t> compression = ctx.attrs().GetOr<int64_t>("compression", -1);
  if (!compression.ok()) return compression.status();
  if (*compression < -1 || *compression > 9) {
    return absl::InvalidArgumentError(
        absl::StrCat("compression should be in [-1,9], got ", *compression));
  }
  if (image.dtype() != DataType::kUInt8 && image.dtype() != DataType::kUInt16) {
    return absl::InvalidArgumentError(
        absl::StrCat("image must have type uint8 or uint16, got ", DataTypeName(image.dtype())));
  }
  const int bits = image.dtype() == DataType::kUInt8 ? 8 : 16;
  if (image.rank() < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("images must be at least rank 3", TfShapeText(image.shape())));
  }
  if (image.num_elements() >= std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError("image cannot have >= int32 max elements");
  }
  const int b = image.rank() - 3;
  const int64_t height = image.dim(b);
  const int64_t width = image.dim(b + 1);
  const int64_t channels = image.dim(b + 2);
  if (width * channels >= std::numeric_limits<int32_t>::max() / 2) {
    return absl::InvalidArgumentError("image too wide to encode");
  }
  if (channels < 1 || channels > 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("image must have 1, 2, 3, or 4 channels, got ", channels));
  }
  Shape batch(image.shape().begin(), image.shape().begin() + b);
  int64_t images = 1;
  for (int64_t d : batch) images *= d;
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, batch);
  if (!out.ok()) return out.status();
  const int64_t row_bytes = width * channels * bits / 8;
  std::vector<int64_t> failed;
  for (int64_t i = 0; i < images; ++i) {
    PngWriteJob job;
    job.out = &(*out)->data<std::string>()[i];
    job.pixels = static_cast<const uint8_t*>(image.raw_data()) + i * height * row_bytes;
    job.row_bytes = row_bytes;
    job.width = static_cast<uint32_t>(width);
    job.height = static_cast<uint32_t>(height);
    job.channels = static_cast<int>(channels);
    job.bits = bits;
    job.compression = static_cast<int>(*compression);
    const bool ok = WritePng(&job);
    if (job.png != nullptr) png_destroy_write_struct(&job.png, &job.info);
    if (!ok) failed.push_back(i);
  }
  if (!failed.empty()) {
    return absl::InternalError(
        absl::StrCat("PNG encoding failed at the following flattened batch indices: ",
                     absl::StrJoin(failed, ", ")));
  }
  return absl::OkStatus();
}

// ---- JPEG ----

struct JpegFlags {
  int quality = 95;
  bool progressive = false;
  bool optimize_size = false;
  bool chroma_downsampling = true;
  int density_unit = 1;  // 1: dots per inch, 2: per cm
  int x_density = 300;
  int y_density = 300;
};

// Everything a compression keeps across libjpeg's longjmp. cinfo comes first: the error
// and destination callbacks find the job from it.
struct JpegWriteJob {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr jerr;
  jpeg_destination_mgr dest;
  std::jmp_buf jump;
  bool created = false;
  JOCTET buffer[4096];
  std::string* out = nullptr;
  const uint8_t* pixels = nullptr;
  int width = 0;
  int height = 0;
  int components = 0;
  JpegFlags flags;
  const std::string* xmp_packet = nullptr;  // namespace, NUL, metadata; empty for none
};

JpegWriteJob* JobOf(j_compress_ptr cinfo) { return reinterpret_cast<JpegWriteJob*>(cinfo); }

void JpegWriteErrorExit(j_common_ptr cinfo) {
  std::longjmp(JobOf(reinterpret_cast<j_compress_ptr>(cinfo))->jump, 1);
}
void JpegQuiet(j_common_ptr) {}

void DestInit(j_compress_ptr cinfo) {
  JpegWriteJob* job = JobOf(cinfo);
  job->dest.next_output_byte = job->buffer;
  job->dest.free_in_buffer = sizeof(job->buffer);
}
boolean DestEmpty(j_compress_ptr cinfo) {
  JpegWriteJob* job = JobOf(cinfo);
  job->out->append(reinterpret_cast<char*>(job->buffer), sizeof(job->buffer));
  DestInit(cinfo);
  return TRUE;
}
void DestTerm(j_compress_ptr cinfo) {
  JpegWriteJob* job = JobOf(cinfo);
  job->out->append(reinterpret_cast<char*>(job->buffer),
                   sizeof(job->buffer) - job->dest.free_in_buffer);
}

// False where libjpeg refuses. The caller destroys cinfo when job->created.
bool WriteJpeg(JpegWriteJob* job) {
  job->cinfo.err = jpeg_std_error(&job->jerr);
  job->jerr.error_exit = JpegWriteErrorExit;
  job->jerr.output_message = JpegQuiet;
  if (setjmp(job->jump)) return false;
  jpeg_create_compress(&job->cinfo);
  job->created = true;
  job->dest.init_destination = DestInit;
  job->dest.empty_output_buffer = DestEmpty;
  job->dest.term_destination = DestTerm;
  job->cinfo.dest = &job->dest;
  job->cinfo.image_width = static_cast<JDIMENSION>(job->width);
  job->cinfo.image_height = static_cast<JDIMENSION>(job->height);
  job->cinfo.input_components = job->components;
  job->cinfo.in_color_space = job->components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&job->cinfo);
  if (job->flags.optimize_size) job->cinfo.optimize_coding = TRUE;
  job->cinfo.density_unit = static_cast<UINT8>(job->flags.density_unit);
  job->cinfo.X_density = static_cast<UINT16>(job->flags.x_density);
  job->cinfo.Y_density = static_cast<UINT16>(job->flags.y_density);
  jpeg_set_quality(&job->cinfo, job->flags.quality, TRUE);
  if (job->flags.progressive) jpeg_simple_progression(&job->cinfo);
  if (!job->flags.chroma_downsampling) {
    for (int i = 0; i < job->cinfo.num_components; ++i) {
      job->cinfo.comp_info[i].h_samp_factor = 1;
      job->cinfo.comp_info[i].v_samp_factor = 1;
    }
  }
  jpeg_start_compress(&job->cinfo, TRUE);
  if (!job->xmp_packet->empty()) {
    jpeg_write_marker(&job->cinfo, JPEG_APP0 + 1,
                      reinterpret_cast<const JOCTET*>(job->xmp_packet->data()),
                      static_cast<unsigned int>(job->xmp_packet->size()));
  }
  const int64_t stride = int64_t{job->width} * job->components;
  while (job->cinfo.next_scanline < job->cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(job->pixels + job->cinfo.next_scanline * stride);
    jpeg_write_scanlines(&job->cinfo, &row, 1);
  }
  jpeg_finish_compress(&job->cinfo);
  return true;
}

// format "" takes the image's 1 or 3 channels; "grayscale" and "rgb" insist on theirs.
absl::Status EncodeJpegImage(KernelContext& ctx, const Tensor& image, const std::string& format,
                             const JpegFlags& flags, const std::string& xmp) {
  const int64_t channels = image.dim(2);
  if (format.empty()) {
    if (channels != 1 && channels != 3) {
      return absl::InvalidArgumentError(
          absl::StrCat("image must have 1 or 3 channels, got ", TfShapeText(image.shape())));
    }
  } else {
    const int64_t want = format == "grayscale" ? 1 : 3;
    if (channels != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "format ", format, " expects ", want, " channels, got ", TfShapeText(image.shape())));
    }
  }
  if (image.dtype() != DataType::kUInt8) {
    return absl::InvalidArgumentError(
        absl::StrCat("image must be uint8, got ", DataTypeName(image.dtype())));
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, {});
  if (!out.ok()) return out.status();
  std::string packet;
  if (!xmp.empty()) {
    packet = "http://ns.adobe.com/xap/1.0/";
    packet.push_back('\0');
    packet += xmp;
  }
  // TensorFlow's Compress refuses an empty image before libjpeg sees it.
  if (image.dim(0) <= 0 || image.dim(1) <= 0) {
    return absl::InternalError("JPEG encoding failed");
  }
  auto job = std::make_unique<JpegWriteJob>();
  job->out = &(*out)->data<std::string>()[0];
  job->pixels = image.data<uint8_t>();
  job->height = static_cast<int>(image.dim(0));
  job->width = static_cast<int>(image.dim(1));
  job->components = static_cast<int>(channels);
  job->flags = flags;
  job->xmp_packet = &packet;
  const bool ok = WriteJpeg(job.get());
  if (job->created) jpeg_destroy_compress(&job->cinfo);
  if (!ok) {
    job->out->clear();
    return absl::InternalError("JPEG encoding failed");
  }
  return absl::OkStatus();
}

absl::Status CheckJpegImage(const Tensor& image) {
  if (image.rank() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("image must be 3-dimensional", TfShapeText(image.shape())));
  }
  if (image.num_elements() >= std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError("Cannot encode images with >= max int32 elements");
  }
  return absl::OkStatus();
}

absl::Status ComputeEncodeJpeg(KernelContext& ctx) {
  const AttrMap& a = ctx.attrs();
  absl::StatusOr<std::string> format = a.GetOr<std::string>("format", "");
  if (!format.ok()) return format.status();
  if (!format->empty() && *format != "grayscale" && *format != "rgb") {
    return absl::InvalidArgumentError(absl::StrCat("Value for attr 'format' of \"", *format,
                                                   "\" is not in the list of allowed values: "
                                                   "\"\", \"grayscale\", \"rgb\""));
  }
  JpegFlags flags;
  absl::StatusOr<int64_t> quality = a.GetOr<int64_t>("quality", 95);
  if (!quality.ok()) return quality.status();
  if (*quality < 0 || *quality > 100) {
    return absl::InvalidArgumentError(absl::StrCat("quality must be in [0,100], got ", *quality));
  }
  flags.quality = static_cast<int>(*quality);
  for (auto [name, field] : {std::pair<const char*, bool*>{"progressive", &flags.progressive},
                             {"optimize_size", &flags.optimize_size},
                             {"chroma_downsampling", &flags.chroma_downsampling}}) {
    absl::StatusOr<bool> v = a.GetOr<bool>(name, *field);
    if (!v.ok()) return v.status();
    *field = *v;
  }
  absl::StatusOr<std::string> unit = a.GetOr<std::string>("density_unit", "in");
  if (!unit.ok()) return unit.status();
  if (*unit != "in" && *unit != "cm") {
    return absl::InvalidArgumentError(absl::StrCat("Value for attr 'density_unit' of \"", *unit,
                                                   "\" is not in the list of allowed values: "
                                                   "\"in\", \"cm\""));
  }
  flags.density_unit = *unit == "in" ? 1 : 2;
  for (auto [name, field] : {std::pair<const char*, int*>{"x_density", &flags.x_density},
                             {"y_density", &flags.y_density}}) {
    absl::StatusOr<int64_t> v = a.GetOr<int64_t>(name, 300);
    if (!v.ok()) return v.status();
    *field = static_cast<int>(*v);
  }
  absl::StatusOr<std::string> xmp = a.GetOr<std::string>("xmp_metadata", "");
  if (!xmp.ok()) return xmp.status();
  const Tensor& image = ctx.input(0);
  if (absl::Status s = CheckJpegImage(image); !s.ok()) return s;
  return EncodeJpegImage(ctx, image, *format, flags, *xmp);
}

absl::Status ComputeEncodeJpegVariableQuality(KernelContext& ctx) {
  const Tensor& image = ctx.input(0);
  const Tensor& quality = ctx.input(1);
  if (absl::Status s = CheckJpegImage(image); !s.ok()) return s;
  if (quality.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("quality must be scalar: ", TfShapeText(quality.shape())));
  }
  if (quality.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError(
        absl::StrCat("quality must be int32, got ", DataTypeName(quality.dtype())));
  }
  JpegFlags flags;
  flags.quality = quality.data<int32_t>()[0];
  if (flags.quality < 0 || flags.quality > 100) {
    return absl::InvalidArgumentError(
        absl::StrCat("quality must be in [0,100], got ", flags.quality));
  }
  return EncodeJpegImage(ctx, image, "", flags, "");
}

}  // namespace

void RegisterImageEncodeOps(KernelRegistry& r) {
  r.AddKernel({"EncodePng", kCpu, "T", {DataType::kUInt8, DataType::kUInt16}, ComputeEncodePng});
  r.AddKernel({"EncodeJpeg", kCpu, "", {}, ComputeEncodeJpeg});
  r.AddKernel({"EncodeJpegVariableQuality", kCpu, "", {}, ComputeEncodeJpegVariableQuality});
}

}  // namespace smrt::kernels
