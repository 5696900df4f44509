#include "gpumux/frontend/policies/maestro_decision.h"

#include <cmath>
#include <limits>

namespace gpumux::frontend::maestro {

std::optional<Objective> objective_named(std::string_view name) {
  if (name == "antt") return Objective::Antt;
  if (name == "stp") return Objective::Stp;
  return std::nullopt;
}

const char* choice_name(Choice c) {
  switch (c) {
    case Choice::Followers: return "followers";
    case Choice::TrialMore: return "trial +1";
    case Choice::TrialFewer: return "trial -1";
    case Choice::Spatial: return "spatial";
  }
  return "?";
}

double objective(Objective o, const CpiPair& isolated, const CpiPair& mk, double ways) {
  double antt = 0, stp = 0;
  for (size_t k = 0; k < 2; ++k) {
    // Nothing issued (infinite CPI): no progress, an infinite slowdown.
    double progress = std::isinf(mk[k]) ? 0 : isolated[k] / mk[k] / ways;
    stp += progress;
    antt += progress > 0 ? 1 / progress / 2 : std::numeric_limits<double>::infinity();
  }
  return o == Objective::Antt ? antt : stp;
}

Decision decide(Objective o, const EpochCpi& e) {
  Decision best;
  bool usable = true;
  for (double c : e.isolated) usable &= std::isfinite(c) && c > 0;
  if (!usable || !e.followers) return best;
  auto better = [&](double a, double b) { return o == Objective::Antt ? a < b : a > b; };
  best.objective = objective(o, e.isolated, *e.followers);
  auto consider = [&](Choice c, const std::optional<CpiPair>& mk, double ways) {
    if (!mk) return;
    double v = objective(o, e.isolated, *mk, ways);
    if (better(v, best.objective)) best = {c, v};
  };
  consider(Choice::TrialMore, e.trial_more, 1);
  consider(Choice::TrialFewer, e.trial_fewer, 1);
  consider(Choice::Spatial, e.spatial, 2);
  return best;
}

bool stable(const CpiPair& previous, const CpiPair& current, double tolerance) {
  for (size_t k = 0; k < 2; ++k) {
    if (!std::isfinite(previous[k]) || !std::isfinite(current[k]) || previous[k] <= 0) return false;
    if (std::abs(current[k] - previous[k]) > tolerance * previous[k]) return false;
  }
  return true;
}

}  // namespace gpumux::frontend::maestro
