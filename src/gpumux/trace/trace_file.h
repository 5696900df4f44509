// The bytes of a trace file as text: Accel-Sim's NVBit tracer compresses its
// kernel files with xz by default (TRACE_FILE_COMPRESS=1: kernel-N.trace.xz,
// and kernel-N.traceg.xz after post-processing); traces are also shared
// recompressed with gzip or zstd. The format is told by the data's magic
// bytes, not the name, so a renamed file still reads.
#pragma once

#include <filesystem>
#include <string>

namespace gpumux::trace {

// The file's text, decompressed in memory when it is xz, gzip or zstd data.
// A missing, unreadable, corrupt or truncated file is a LoadError naming it.
std::string read_trace_file(const std::filesystem::path& p);

// `data` decompressed when it starts with an xz, gzip or zstd magic number,
// else unchanged; `name` stands for the file in errors.
std::string decode_trace_bytes(std::string data, const std::string& name);

}  // namespace gpumux::trace
