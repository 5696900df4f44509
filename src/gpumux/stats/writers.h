// Writers of a run's statistics, separate from the model: they read the
// registry and the key table and know nothing about components.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "gpumux/core/stats.h"

namespace gpumux::stats {

// {"keys": [{"key", "app", "kernel", "label"}...],
//  "stats": {"sm3": {"l1d": {"hits": {"doc", "total", "by_key": {"<label>": n}}}}}}
// Histograms give {"count", "sum", "min", "max", "mean", "bucket_width", "buckets"}
// for the total and for each key.
nlohmann::json to_json(const StatRegistry& registry, const StatKeys& keys);
void write_json(std::ostream& out, const StatRegistry& registry, const StatKeys& keys);

// One row per stat and key ("total" first): stat,key,app,kernel,value.
// Histograms appear as <path>.count, .mean, .min and .max.
void write_csv(std::ostream& out, const StatRegistry& registry, const StatKeys& keys);

}  // namespace gpumux::stats
