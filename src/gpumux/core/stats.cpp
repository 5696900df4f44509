#include "gpumux/core/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace gpumux {

StatKeys::StatKeys() { entries_.push_back(Entry{0, 0, "unattributed"}); }

StatKey StatKeys::key(uint32_t app, uint32_t kernel, std::string label) {
  for (size_t i = 1; i < entries_.size(); ++i)
    if (entries_[i].app == app && entries_[i].kernel == kernel) return StatKey(i);
  if (entries_.size() > std::numeric_limits<StatKey>::max())
    throw std::length_error("too many (app, kernel) pairs for StatKey");
  if (label.empty()) label = fmt::format("app{}.k{}", app, kernel);
  entries_.push_back(Entry{app, kernel, std::move(label)});
  return StatKey(entries_.size() - 1);
}

Histogram::Histogram(uint64_t bucket_width, uint32_t buckets)
    : width_(std::max<uint64_t>(bucket_width, 1)), buckets_(std::max<uint32_t>(buckets, 1), 0) {}

void Histogram::merge(const Histogram& o) {
  if (o.width_ != width_ || o.buckets_.size() != buckets_.size())
    throw std::logic_error("merging histograms of different shapes");
  for (size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += o.buckets_[i];
  count_ += o.count_;
  sum_ += o.sum_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
}

void Histogram::reset() {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  count_ = sum_ = max_ = 0;
  min_ = std::numeric_limits<uint64_t>::max();
}

bool path_matches(std::string_view pattern, std::string_view path) {
  if (pattern.empty()) return path.empty();
  if (pattern.front() == '*') {
    // '*' consumes zero or more characters of the current segment.
    for (size_t n = 0;; ++n) {
      if (path_matches(pattern.substr(1), path.substr(n))) return true;
      if (n == path.size() || path[n] == '.') return false;
    }
  }
  return !path.empty() && path.front() == pattern.front() && path_matches(pattern.substr(1), path.substr(1));
}

void StatRegistry::insert(std::string path, Stat stat, std::string doc) {
  const uint32_t index = uint32_t(entries_.size());
  auto nested = [&](const Node& n) {
    return std::logic_error(
        fmt::format("statistic '{}' and '{}': one nests under the other", path, entries_[n.entry].path));
  };
  if (auto it = nodes_.find(path); it != nodes_.end()) {
    if (it->second.leaf) throw std::logic_error(fmt::format("statistic '{}' registered twice", path));
    throw nested(it->second);
  }
  // Check every prefix before adding any, so that a rejected path leaves no trace.
  for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1))
    if (auto it = nodes_.find(std::string_view(path).substr(0, dot)); it != nodes_.end() && it->second.leaf)
      throw nested(it->second);
  for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1)) {
    std::string_view prefix = std::string_view(path).substr(0, dot);
    if (!nodes_.contains(prefix)) nodes_.emplace(std::string(prefix), Node{index, false});
  }
  nodes_.emplace(path, Node{index, true});
  entries_.push_back(Entry{std::move(path), std::move(doc), stat});
}

const StatRegistry::Entry* StatRegistry::find(std::string_view path) const {
  auto it = nodes_.find(path);
  return it != nodes_.end() && it->second.leaf ? &entries_[it->second.entry] : nullptr;
}

uint64_t StatRegistry::sum_impl(std::string_view pattern, const StatKey* key) const {
  uint64_t total = 0;
  for (const Entry& e : entries_) {
    if (!path_matches(pattern, e.path)) continue;
    if (auto* c = std::get_if<Counter*>(&e.stat)) {
      if (!key) total += (*c)->value();
    } else if (auto* k = std::get_if<KeyedCounter*>(&e.stat)) {
      total += key ? (*k)->at(*key).value() : (*k)->total().value();
    }
  }
  return total;
}

uint64_t StatRegistry::sum(std::string_view pattern) const { return sum_impl(pattern, nullptr); }

uint64_t StatRegistry::sum(std::string_view pattern, StatKey key) const { return sum_impl(pattern, &key); }

void StatRegistry::reset() {
  for (Entry& e : entries_) std::visit([](auto* s) { s->reset(); }, e.stat);
}

}  // namespace gpumux
