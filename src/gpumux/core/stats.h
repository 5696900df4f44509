// Statistics: typed members of the component that counts them, keyed by
// (application, kernel) and registered under a path in one tree per run.
//
//   struct CacheStats { KeyedCounter hits, misses; };
//   stats.hits[req.key].add();                 // hot path: an index, no lookup
//   registry.add("sm3.l1d.hits", stats.hits, "read hits");
//   registry.sum("sm*.l1d.hits");              // aggregated on demand
//
// A StatKey is the dense slot of an (app, kernel) pair, assigned by StatKeys
// when a kernel is launched and carried by the work it generates (requests,
// warps). Writers (stats/writers.h) read the registry; the model never formats.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace gpumux {

using StatKey = uint16_t;
inline constexpr StatKey kNoKey = 0;  // work not attributable to one kernel (e.g. writebacks)

class StatKeys {
 public:
  struct Entry {
    uint32_t app = 0;
    uint32_t kernel = 0;
    std::string label;  // "app.kernel" names, for reports
  };

  StatKeys();
  // The key of (app, kernel), created on first use with `label` (default "app<a>.k<k>").
  StatKey key(uint32_t app, uint32_t kernel, std::string label = "");
  size_t size() const { return entries_.size(); }
  const Entry& at(StatKey k) const { return entries_[k]; }

 private:
  std::vector<Entry> entries_;  // [0] = unattributed
};

class Counter {
 public:
  void add(uint64_t n = 1) { value_ += n; }
  uint64_t value() const { return value_; }
  void merge(const Counter& o) { value_ += o.value_; }
  void reset() { value_ = 0; }

 private:
  uint64_t value_ = 0;
};

// Distribution of a quantity in equal-width buckets; the last bucket also
// counts everything above the range.
class Histogram {
 public:
  explicit Histogram(uint64_t bucket_width = 1, uint32_t buckets = 64);
  void sample(uint64_t v) {
    uint64_t b = v / width_;
    ++buckets_[b < buckets_.size() ? b : buckets_.size() - 1];
    ++count_;
    sum_ += v;
    if (v < min_) min_ = v;
    if (v > max_) max_ = v;
  }
  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? double(sum_) / double(count_) : 0.0; }
  uint64_t bucket_width() const { return width_; }
  const std::vector<uint64_t>& buckets() const { return buckets_; }
  void merge(const Histogram& o);  // same shape required
  void reset();

 private:
  uint64_t width_;
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0, sum_ = 0;
  uint64_t min_ = std::numeric_limits<uint64_t>::max(), max_ = 0;
};

// One S per StatKey, grown when a new key first shows up (once per kernel).
template <class S>
class Keyed {
 public:
  explicit Keyed(S prototype = S{}) : prototype_(std::move(prototype)) {}
  S& operator[](StatKey k) {
    if (k >= slots_.size()) grow(k);
    return slots_[k];
  }
  // Keys seen so far are [0, size()).
  size_t size() const { return slots_.size(); }
  const S& at(StatKey k) const { return k < slots_.size() ? slots_[k] : prototype_; }
  S total() const {
    S t = prototype_;
    for (const S& s : slots_) t.merge(s);
    return t;
  }
  void reset() {
    for (S& s : slots_) s.reset();
  }

 private:
  void grow(StatKey k) { slots_.resize(size_t(k) + 1, prototype_); }
  S prototype_;
  std::vector<S> slots_;
};

using KeyedCounter = Keyed<Counter>;
using KeyedHistogram = Keyed<Histogram>;

// The tree of a run's statistics: paths to stats owned by components, which
// must outlive the registry's use.
class StatRegistry {
 public:
  using Stat = std::variant<Counter*, KeyedCounter*, Histogram*, KeyedHistogram*>;
  struct Entry {
    std::string path;
    std::string doc;
    Stat stat;
  };

  // Path segments are separated by '.'; a path may not be registered twice.
  void add(std::string path, Counter& c, std::string doc) { insert(std::move(path), &c, std::move(doc)); }
  void add(std::string path, KeyedCounter& c, std::string doc) { insert(std::move(path), &c, std::move(doc)); }
  void add(std::string path, Histogram& h, std::string doc) { insert(std::move(path), &h, std::move(doc)); }
  void add(std::string path, KeyedHistogram& h, std::string doc) { insert(std::move(path), &h, std::move(doc)); }

  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* find(std::string_view path) const;

  // Sum of the counters whose path matches `pattern`, where '*' matches any
  // characters within one segment ("sm*.l1d.hits"); for one key or all.
  uint64_t sum(std::string_view pattern) const;
  uint64_t sum(std::string_view pattern, StatKey key) const;
  // Zeroes every registered stat (e.g. after a warm-up phase).
  void reset();

 private:
  // A path registered (a leaf) or a proper '.'-prefix of one (an inner node).
  struct Node {
    uint32_t entry = 0;  // the leaf's entry, or the first entry under the inner node
    bool leaf = false;
  };
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  void insert(std::string path, Stat stat, std::string doc);
  uint64_t sum_impl(std::string_view pattern, const StatKey* key) const;
  std::vector<Entry> entries_;
  // Every leaf and inner node: a GPU registers thousands of stats, so checking
  // a new path against each earlier one would be quadratic.
  std::unordered_map<std::string, Node, PathHash, std::equal_to<>> nodes_;
};

// Whether `path` matches `pattern` ('*' = any characters except '.').
bool path_matches(std::string_view pattern, std::string_view path);

}  // namespace gpumux
