/* Writes a CMYK JPEG (libjpeg writes the Adobe marker for CMYK, as Photoshop
 * does) for tests/generators/kernel_goldens/image_decode.py, which has no
 * encoder that writes CMYK. Reads width*height*4 bytes of C, M, Y, K from
 * stdin; writes the JPEG to stdout. Usage: cmyk_jpeg WIDTH HEIGHT QUALITY. */
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const int width = atoi(argv[1]), height = atoi(argv[2]), quality = atoi(argv[3]);
  unsigned char* pixels = malloc((size_t)width * height * 4);
  if (fread(pixels, 4, (size_t)width * height, stdin) != (size_t)width * height) return 3;
  struct jpeg_compress_struct cinfo;
  struct jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  jpeg_stdio_dest(&cinfo, stdout);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = 4;
  cinfo.in_color_space = JCS_CMYK;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = pixels + (size_t)cinfo.next_scanline * width * 4;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  free(pixels);
  return 0;
}
