// Errors that end a simulation. Every error carries enough context to find the
// cause: the PTX file and line, and for run-time faults the kernel, TB, warp,
// lane and PC. The CLI prints what() and exits non-zero.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpumux {

// Where in a PTX file something is.
struct SourceLoc {
  std::string file;  // PTX file name (or module name for embedded PTX)
  uint32_t line = 0;
  std::string str() const { return file + ":" + std::to_string(line); }
};

// Malformed or unsupported input found while loading (PTX, config, workload).
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Misuse of the host API: bad launch, bad pointer passed to memcpy, ...
class ApiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where in a running kernel a fault happened.
struct FaultSite {
  std::string kernel;
  uint32_t tb_x = 0, tb_y = 0, tb_z = 0;  // CTA id
  uint32_t warp = 0;                      // warp index inside the TB
  std::optional<uint32_t> lane;           // faulting lane, when one lane is to blame
  uint32_t pc = 0;                        // instruction index inside the function
  std::string function;                   // function containing pc (kernel or .func)
  SourceLoc ptx;                          // PTX source line of the instruction
  SourceLoc source;                       // CUDA source line (.loc), when known
  std::string describe() const;
};

// A fault raised while executing a kernel (bad address, barrier deadlock, trap...).
class DeviceFault : public std::runtime_error {
 public:
  DeviceFault(std::string reason, FaultSite site);
  const std::string& reason() const { return reason_; }
  const FaultSite& site() const { return site_; }

 private:
  std::string reason_;
  FaultSite site_;
};

}  // namespace gpumux
