// Compressed trace files (src/gpumux/trace/trace_file.h): xz (the NVBit
// tracer's default), gzip and zstd data decode to the text they hold, whole
// files and concatenated members alike; truncated or corrupt data is a
// LoadError naming the file, never a crash or a short text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "gpumux/core/error.h"
#include "gpumux/trace/trace_file.h"
#include "trace/compress_test_util.h"

namespace gpumux::trace {
namespace {

// A few MB of trace-like text: more than one output chunk of the decoders.
std::string sample_text() {
  std::string t = "-kernel name = k\n";
  for (unsigned i = 0; i < 120000; ++i) t += std::to_string(i * 16) + " ffffffff 1 R1 IADD3 2 R2 R3 0 0 \n";
  return t;
}

void expect_load_error(const std::string& data, const std::string& what) {
  try {
    decode_trace_bytes(data, "kernel-1.traceg.xz");
    ADD_FAILURE() << "no error; expected " << what;
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel-1.traceg.xz: corrupt or truncated " + what), std::string::npos)
        << e.what();
  }
}

TEST(TraceFile, CompressedDataDecodesToItsText) {
  const std::string text = sample_text();
  EXPECT_EQ(decode_trace_bytes(text, "plain"), text);
  const std::vector<std::pair<const char*, std::function<std::string(const std::string&)>>> formats = {
      {"xz", test::xz}, {"gzip", test::gz}, {"zstd", test::zst}};
  for (const auto& [name, compress] : formats) {
    const std::string packed = compress(text);
    ASSERT_LT(packed.size(), text.size() / 4) << name;
    EXPECT_EQ(decode_trace_bytes(packed, "f"), text) << name;
    // Members appended one after the other (xz and gzip append so) are one text.
    EXPECT_EQ(decode_trace_bytes(packed + compress("tail\n"), "f"), text + "tail\n") << name;
    expect_load_error(packed.substr(0, packed.size() - 9), name);
    std::string flipped = packed;
    flipped[flipped.size() / 2] = char(flipped[flipped.size() / 2] ^ 0x5a);
    expect_load_error(flipped, name);
  }
}

TEST(TraceFile, FilesAreReadByContentNotName) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "gpumux-trace-file";
  std::filesystem::create_directories(dir);
  const std::string text = "-kernel name = k\n";
  std::ofstream(dir / "a.traceg", std::ios::binary) << test::xz(text);  // no .xz suffix
  std::ofstream(dir / "b.traceg.xz", std::ios::binary) << text;   // plain despite its suffix
  EXPECT_EQ(read_trace_file(dir / "a.traceg"), text);
  EXPECT_EQ(read_trace_file(dir / "b.traceg.xz"), text);
  EXPECT_THROW(read_trace_file(dir / "missing.traceg"), LoadError);
}

}  // namespace
}  // namespace gpumux::trace
