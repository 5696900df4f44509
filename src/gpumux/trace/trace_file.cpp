#include "gpumux/trace/trace_file.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "gpumux/core/error.h"

namespace gpumux::trace {

namespace {

constexpr size_t kChunk = size_t(1) << 20;  // output grown by this much at a time

bool starts_with(std::string_view data, std::string_view magic) { return data.substr(0, magic.size()) == magic; }

[[noreturn]] void corrupt(const std::string& name, const char* format, std::string_view why) {
  throw LoadError(fmt::format("{}: corrupt or truncated {} data ({})", name, format, why));
}

std::string xz(std::string_view in, const std::string& name) {
  lzma_stream s = LZMA_STREAM_INIT;
  // Concatenated streams, as `xz` writes them when appending.
  if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
    throw LoadError(fmt::format("{}: cannot start the xz decoder", name));
  std::string out;
  s.next_in = reinterpret_cast<const uint8_t*>(in.data());
  s.avail_in = in.size();
  lzma_ret r = LZMA_OK;
  while (r == LZMA_OK) {
    const size_t done = out.size();
    out.resize(done + kChunk);
    s.next_out = reinterpret_cast<uint8_t*>(out.data() + done);
    s.avail_out = kChunk;
    r = lzma_code(&s, LZMA_FINISH);
    out.resize(out.size() - s.avail_out);
  }
  lzma_end(&s);
  if (r != LZMA_STREAM_END)
    corrupt(name, "xz", r == LZMA_BUF_ERROR ? "the data ends early" : fmt::format("liblzma error {}", int(r)));
  return out;
}

std::string gzip(std::string_view in, const std::string& name) {
  z_stream s{};
  if (inflateInit2(&s, 15 + 16) != Z_OK) throw LoadError(fmt::format("{}: cannot start the gzip decoder", name));
  std::string out;
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  size_t left = in.size();
  for (;;) {
    if (s.avail_in == 0 && left > 0) {  // avail_in is 32-bit: at most 1 GiB at a time
      s.avail_in = uInt(std::min<size_t>(left, size_t(1) << 30));
      left -= s.avail_in;
    }
    const size_t done = out.size();
    out.resize(done + kChunk);
    s.next_out = reinterpret_cast<Bytef*>(out.data() + done);
    s.avail_out = uInt(kChunk);
    const int r = inflate(&s, Z_NO_FLUSH);
    out.resize(out.size() - s.avail_out);
    const bool input_left = s.avail_in > 0 || left > 0;
    if (r == Z_STREAM_END && !input_left) break;
    if (r == Z_STREAM_END) {  // another gzip member follows (gzip appends them)
      inflateReset(&s);
      continue;
    }
    if (r == Z_OK || (r == Z_BUF_ERROR && input_left)) continue;
    const std::string why = r == Z_BUF_ERROR ? "the data ends early" : s.msg ? s.msg : fmt::format("zlib error {}", r);
    inflateEnd(&s);
    corrupt(name, "gzip", why);
  }
  inflateEnd(&s);
  return out;
}

std::string zstd(std::string_view in, const std::string& name) {
  ZSTD_DStream* d = ZSTD_createDStream();
  if (!d) throw LoadError(fmt::format("{}: cannot start the zstd decoder", name));
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  std::string out;
  size_t r = 0;
  for (;;) {
    const size_t done = out.size();
    out.resize(done + kChunk);
    ZSTD_outBuffer dst{out.data() + done, kChunk, 0};
    r = ZSTD_decompressStream(d, &dst, &src);
    out.resize(done + dst.pos);
    // Input consumed and room left in the output: the decoder holds nothing more.
    if (ZSTD_isError(r) || (src.pos == src.size && dst.pos < dst.size)) break;
  }
  ZSTD_freeDStream(d);
  if (ZSTD_isError(r)) corrupt(name, "zstd", ZSTD_getErrorName(r));
  if (r != 0) corrupt(name, "zstd", "the data ends early");  // 0: the last frame is complete
  return out;
}

}  // namespace

std::string decode_trace_bytes(std::string data, const std::string& name) {
  using namespace std::literals;
  if (starts_with(data, "\xFD" "7zXZ\0"sv)) return xz(data, name);
  if (starts_with(data, "\x1F\x8B"sv)) return gzip(data, name);
  if (starts_with(data, "\x28\xB5\x2F\xFD"sv)) return zstd(data, name);
  return data;
}

std::string read_trace_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw LoadError(fmt::format("{}: cannot open trace file", p.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw LoadError(fmt::format("{}: error reading trace file", p.string()));
  return decode_trace_bytes(std::move(ss).str(), p.string());
}

}  // namespace gpumux::trace
