// vprintf(format, args): CUDA device printf. nvcc packs a call's arguments
// into a per-thread local buffer, each aligned to its own size after the C
// default promotions (char and short to int, float to double); the format
// string and %s strings are in device memory. Each executing thread's text
// is formatted on the host and sent to the application's printf sink, lanes
// in ascending order, so output is deterministic. Like CUDA's printf, the
// call returns the number of arguments it consumed, or -1 for a null format.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <iterator>
#include <string_view>

#include <fmt/format.h>

#include "gpumux/exec/builtins/call.h"
#include "gpumux/exec/builtins/handlers.h"
#include "gpumux/exec/builtins/services.h"

namespace gpumux::exec {

namespace {

constexpr size_t kMaxText = 64 * 1024;  // longest format or %s string read
constexpr int kMaxWidth = 4096;         // widths and precisions are clamped to this

// Reads one thread's packed arguments in order.
class ArgReader {
 public:
  ArgReader(const BuiltinCall& call, unsigned lane, uint64_t base)
      : call_(call), lane_(lane), base_(base) {}
  uint64_t next(unsigned bytes) {
    if (!base_) call_.fault("printf: the format uses more arguments than the call passes", lane_);
    offset_ = (offset_ + bytes - 1) / bytes * bytes;
    uint64_t v = 0;
    call_.read(lane_, base_ + offset_, &v, bytes, "printf argument");
    offset_ += bytes;
    ++count_;
    return v;
  }
  int count() const { return count_; }

 private:
  const BuiltinCall& call_;
  unsigned lane_;
  uint64_t base_, offset_ = 0;
  int count_ = 0;
};

// One parsed conversion: %[flags][width][.precision][length]conv.
struct Spec {
  std::string flags;
  int width = -1, precision = -1;
  std::string_view length;
  char conv = 0;
};

// Formats one value with the C library. The format is rebuilt from the
// parsed parts, so it is always well formed and matches the value's type.
template <class T>
std::string c_format(const Spec& s, const char* length, T value) {
  std::string f = fmt::format("%{}", s.flags);
  if (s.width >= 0) fmt::format_to(std::back_inserter(f), "{}", s.width);
  if (s.precision >= 0) fmt::format_to(std::back_inserter(f), ".{}", s.precision);
  fmt::format_to(std::back_inserter(f), "{}{}", length, s.conv);
  const int n = std::snprintf(nullptr, 0, f.c_str(), value);
  std::string out(size_t(std::max(n, 0)), '\0');
  std::snprintf(out.data(), out.size() + 1, f.c_str(), value);
  return out;
}

bool is_wide(std::string_view length) {
  return length == "l" || length == "ll" || length == "z" || length == "j" || length == "t";
}

// Parses the conversion starting after '%' at fmt[i]; advances i past it.
// Returns false (i unchanged) if it is not a complete conversion.
bool parse_spec(std::string_view fmt, size_t& i, ArgReader& args, Spec& s) {
  size_t j = i;
  while (j < fmt.size() && std::string_view("-+ #0").find(fmt[j]) != std::string_view::npos)
    s.flags += fmt[j++];
  // A width or precision: digits, or '*' taking an int argument. False if absent.
  auto number = [&](int64_t& out) {
    if (j < fmt.size() && fmt[j] == '*') {
      ++j;
      out = int32_t(args.next(4));
      return true;
    }
    if (j >= fmt.size() || fmt[j] < '0' || fmt[j] > '9') return false;
    out = 0;
    while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9')
      out = std::min<int64_t>(out * 10 + (fmt[j++] - '0'), kMaxWidth);
    return true;
  };
  int64_t width = 0, precision = 0;
  if (number(width)) {
    if (width < 0) {  // a negative '*' width left-justifies
      s.flags += '-';
      width = -width;
    }
    s.width = int(std::min<int64_t>(width, kMaxWidth));
  }
  if (j < fmt.size() && fmt[j] == '.') {
    ++j;
    number(precision);  // "." alone is precision 0; a negative '*' one is as if omitted
    s.precision = precision < 0 ? -1 : int(std::min<int64_t>(precision, kMaxWidth));
  }
  const size_t len_start = j;
  while (j < fmt.size() && std::string_view("hlzjtL").find(fmt[j]) != std::string_view::npos) ++j;
  s.length = fmt.substr(len_start, j - len_start);
  if (j >= fmt.size()) return false;
  s.conv = fmt[j];
  i = j + 1;
  return true;
}

// Formats `fmt` for one thread; returns the arguments consumed.
int format_thread(const BuiltinCall& call, unsigned lane, std::string_view fmt, ArgReader& args,
                  std::string& out) {
  for (size_t i = 0; i < fmt.size();) {
    if (fmt[i] != '%') {
      out += fmt[i++];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out += '%';
      i += 2;
      continue;
    }
    const size_t start = i++;
    Spec s;
    if (!parse_spec(fmt, i, args, s)) {  // a dangling '%': printed as written
      out += fmt.substr(start);
      break;
    }
    switch (s.conv) {
      case 'd':
      case 'i': {
        int64_t v = is_wide(s.length) ? int64_t(args.next(8)) : int64_t(int32_t(args.next(4)));
        if (s.length == "hh") v = int8_t(v);
        if (s.length == "h") v = int16_t(v);
        out += c_format(s, "ll", static_cast<long long>(v));
        break;
      }
      case 'u':
      case 'o':
      case 'x':
      case 'X': {
        uint64_t v = is_wide(s.length) ? args.next(8) : args.next(4);
        if (s.length == "hh") v = uint8_t(v);
        if (s.length == "h") v = uint16_t(v);
        out += c_format(s, "ll", static_cast<unsigned long long>(v));
        break;
      }
      case 'c': out += c_format(s, "", int(uint8_t(args.next(4)))); break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': out += c_format(s, "", std::bit_cast<double>(args.next(8))); break;
      case 's': {
        const uint64_t p = args.next(8);
        const size_t max = s.precision >= 0 ? size_t(s.precision) : kMaxText;
        const std::string str = p ? call.read_string(lane, p, max, "printf %s argument") : "(null)";
        out += c_format(s, "", str.c_str());
        break;
      }
      case 'p': {
        const std::string text = fmt::format("0x{:x}", args.next(8));
        Spec padded;
        if (s.flags.find('-') != std::string::npos) padded.flags.push_back('-');
        padded.width = s.width;
        padded.conv = 's';
        out += c_format(padded, "", text.c_str());
        break;
      }
      default: out += fmt.substr(start, i - start);  // not a conversion: printed as written
    }
  }
  return args.count();
}

}  // namespace

void vprintf_builtin(StepContext& c, const ptx::Instruction& in) {
  BuiltinCall call(c, in);
  const BuiltinServices& sink = call.services();
  for_each_lane(c.mask, [&](unsigned lane) {
    const uint64_t fmt_addr = call.arg(0, lane);
    if (!fmt_addr) {
      call.set_result(lane, uint32_t(-1));
      return;
    }
    const std::string fmt = call.read_string(lane, fmt_addr, kMaxText, "printf format string");
    ArgReader args(call, lane, call.arg(1, lane));
    std::string out;
    const int consumed = format_thread(call, lane, fmt, args, out);
    sink.print(out);
    call.set_result(lane, uint32_t(consumed));
  });
}

}  // namespace gpumux::exec
