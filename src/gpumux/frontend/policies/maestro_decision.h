// The decision of the sharing policy "maestro" (maestro.cpp; GPU Maestro,
// Park et al., ASPLOS'17, section 4.1), kept free of the simulator so that it
// can be tested on synthetic inputs: at the end of an epoch, from the CPI
// each kernel of a pair showed on each group of SMs, which partition the
// follower SMs take next.
//
// The pair is (trial kernel, other kernel). A kernel's normalised progress
// on a group of SMs is CPI_SK / CPI_MK (equations 1 and 2 of the paper, per
// SM): its CPI alone (the dedicated SMs') over its CPI on that group. Each
// SMK group (followers, the two trial SMs) gives both kernels' progress on
// one SM; spatial multitasking gives each kernel a whole SM out of every
// two, so its progress per SM is CPI_SK / CPI_spatial / 2 (CPI_spatial: the
// CPI on a dedicated or spatial SM). The objective over the two kernels is
//   ANTT = 1/2 sum 1 / progress   (lower is better)
//   STP  = sum progress           (higher is better)
// and the group with the best one wins. Ties keep the followers' partition
// (no repartition), then prefer the trial SMs, then spatial.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpumux::frontend::maestro {

enum class Objective : uint8_t { Antt, Stp };
// "antt" / "stp"; nullopt for another name.
std::optional<Objective> objective_named(std::string_view name);

// CPI of the trial kernel [0] and the other kernel [1] (cycles per warp
// instruction; +infinity: it issued nothing there).
using CpiPair = std::array<double, 2>;

// One epoch's measurements. `isolated`: on the dedicated SMs (this epoch's,
// or stored when they are followers). `spatial`: on SMs a kernel has alone
// this epoch (dedicated or spatial SMs), if there are any. The SMK groups
// are absent when no SM ran them (too few SMs, or the trial kernel cannot
// take one TB more or fewer).
struct EpochCpi {
  CpiPair isolated{};
  std::optional<CpiPair> spatial, followers, trial_more, trial_fewer;
};

enum class Choice : uint8_t { Followers, TrialMore, TrialFewer, Spatial };
const char* choice_name(Choice c);

struct Decision {
  Choice choice = Choice::Followers;
  double objective = 0;  // the winner's ANTT or STP
};

// The objective of a group whose CPIs are `mk`, given the kernels' isolated
// CPIs; `ways` is 2 for spatial (each kernel has one SM of two), 1 for SMK.
double objective(Objective o, const CpiPair& isolated, const CpiPair& mk, double ways = 1);

// The best group. Without any usable isolated CPI (a kernel issued nothing
// on its dedicated SM) the followers' partition is kept.
Decision decide(Objective o, const EpochCpi& e);

// The dedicated SMs' CPI is stable when each kernel's changed by at most
// `tolerance` (relative) since the previous epoch.
bool stable(const CpiPair& previous, const CpiPair& current, double tolerance);

}  // namespace gpumux::frontend::maestro
