#include "gpumux/stats/writers.h"

#include <fmt/format.h>


namespace gpumux::stats {
namespace {

nlohmann::json histogram_json(const Histogram& h) {
  return {{"count", h.count()}, {"sum", h.sum()},   {"min", h.min()},
          {"max", h.max()},     {"mean", h.mean()}, {"bucket_width", h.bucket_width()},
          {"buckets", h.buckets()}};
}

// The JSON node at the dotted `path` inside `root`, created as needed (the
// registry guarantees no path nests under another).
nlohmann::json& node_at(nlohmann::json& root, std::string_view path) {
  nlohmann::json* node = &root;
  size_t start = 0;
  for (;;) {
    size_t dot = path.find('.', start);
    node = &(*node)[std::string(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start))];
    if (dot == std::string::npos) return *node;
    start = dot + 1;
  }
}

// Calls row(key_label, key, value) for each key with a non-zero value.
template <class S, class Fn>
void for_each_key(const Keyed<S>& keyed, const StatKeys& keys, Fn row) {
  for (size_t k = 0; k < keyed.size(); ++k) {
    const S& s = keyed.at(StatKey(k));
    bool empty;
    if constexpr (std::is_same_v<S, Counter>) {
      empty = s.value() == 0;
    } else {
      empty = s.count() == 0;
    }
    if (!empty) row(keys.at(StatKey(k)), s);
  }
}

}  // namespace

nlohmann::json to_json(const StatRegistry& registry, const StatKeys& keys) {
  nlohmann::json out;
  out["keys"] = nlohmann::json::array();
  for (size_t k = 0; k < keys.size(); ++k) {
    const auto& e = keys.at(StatKey(k));
    out["keys"].push_back({{"key", k}, {"app", e.app}, {"kernel", e.kernel}, {"label", e.label}});
  }
  nlohmann::json stats = nlohmann::json::object();
  // Entries come grouped by component (sm3.l1d.hits, sm3.l1d.misses, ...), so
  // the last entry's parent node is kept: most paths then cost one lookup
  // instead of one per segment (a titanv GPU has ~4,000 entries). Object
  // nodes are map entries, so the pointer stays valid as others are added.
  std::string_view parent_path;
  nlohmann::json* parent = &stats;
  for (const auto& e : registry.entries()) {
    const size_t dot = e.path.rfind('.');
    const std::string_view dir =
        dot == std::string::npos ? std::string_view() : std::string_view(e.path).substr(0, dot);
    if (dir != parent_path) {
      parent = dir.empty() ? &stats : &node_at(stats, dir);
      parent_path = dir;
    }
    // The registry guarantees no path is registered twice: the node is new.
    nlohmann::json& node = (*parent)[e.path.substr(dot + 1)];
    node["doc"] = e.doc;
    if (auto* c = std::get_if<Counter*>(&e.stat)) {
      node["total"] = (*c)->value();
    } else if (auto* kc = std::get_if<KeyedCounter*>(&e.stat)) {
      node["total"] = (*kc)->total().value();
      nlohmann::json& by_key = node["by_key"] = nlohmann::json::object();
      for_each_key(**kc, keys, [&](const StatKeys::Entry& k, const Counter& v) { by_key[k.label] = v.value(); });
    } else if (auto* h = std::get_if<Histogram*>(&e.stat)) {
      node["total"] = histogram_json(**h);
    } else if (auto* kh = std::get_if<KeyedHistogram*>(&e.stat)) {
      node["total"] = histogram_json((*kh)->total());
      nlohmann::json& by_key = node["by_key"] = nlohmann::json::object();
      for_each_key(**kh, keys,
                   [&](const StatKeys::Entry& k, const Histogram& v) { by_key[k.label] = histogram_json(v); });
    }
  }
  out["stats"] = std::move(stats);
  return out;
}

void write_json(std::ostream& out, const StatRegistry& registry, const StatKeys& keys) {
  out << to_json(registry, keys).dump(2) << "\n";
}

void write_csv(std::ostream& out, const StatRegistry& registry, const StatKeys& keys) {
  out << "stat,key,app,kernel,value\n";
  auto total_row = [&](const std::string& path, auto value) { out << fmt::format("{},total,,,{}\n", path, value); };
  auto key_row = [&](const std::string& path, const StatKeys::Entry& k, auto value) {
    out << fmt::format("{},{},{},{},{}\n", path, k.label, k.app, k.kernel, value);
  };
  auto histogram_rows = [&](const std::string& path, const Histogram& h, const StatKeys::Entry* k) {
    auto row = [&](const char* what, auto v) {
      if (k) {
        key_row(path + what, *k, v);
      } else {
        total_row(path + what, v);
      }
    };
    row(".count", h.count());
    row(".mean", h.mean());
    row(".min", h.min());
    row(".max", h.max());
  };
  for (const auto& e : registry.entries()) {
    if (auto* c = std::get_if<Counter*>(&e.stat)) {
      total_row(e.path, (*c)->value());
    } else if (auto* kc = std::get_if<KeyedCounter*>(&e.stat)) {
      total_row(e.path, (*kc)->total().value());
      for_each_key(**kc, keys, [&](const StatKeys::Entry& k, const Counter& v) { key_row(e.path, k, v.value()); });
    } else if (auto* h = std::get_if<Histogram*>(&e.stat)) {
      histogram_rows(e.path, **h, nullptr);
    } else if (auto* kh = std::get_if<KeyedHistogram*>(&e.stat)) {
      histogram_rows(e.path, (*kh)->total(), nullptr);
      for_each_key(**kh, keys, [&](const StatKeys::Entry& k, const Histogram& v) { histogram_rows(e.path, v, &k); });
    }
  }
}

}  // namespace gpumux::stats
