#include "gpumux/core/gpgpusim_options.h"

#include <gtest/gtest.h>

#include "gpumux/core/error.h"
#include "gpumux/core/gpgpusim_cache.h"

namespace gpumux {
namespace {

std::string error_of(const std::string& text) {
  try {
    GpgpusimOptions::parse(text, "f.config");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

TEST(GpgpusimOptions, QuotedValueContinuesOnTheNextLine) {
  auto opts = GpgpusimOptions::parse(
      "-a 1\n"
      "-timing \"nbk=16:RC=40:   # a comment inside the quotes ends the line, as in GPGPU-Sim\n"
      "         CL=12:WL=2\"\n"
      "-b \"one word\"  # after\n",
      "f.config");
  ASSERT_EQ(opts.all().size(), 3u);
  EXPECT_EQ(opts.value("-timing"), "nbk=16:RC=40: CL=12:WL=2");
  EXPECT_EQ(opts.find("-timing")->line, 2);
  EXPECT_EQ(opts.value("-b"), "one word");
}

TEST(GpgpusimOptions, CommentsAndNegativeValues) {
  auto opts = GpgpusimOptions::parse("# -x 1\n-y -1 # -z 2\n#-w \"a:\n#   b\"\n", "f.config");
  ASSERT_EQ(opts.all().size(), 1u);
  EXPECT_EQ(opts.value("-y"), "-1");
}

TEST(GpgpusimOptions, TheLastOfRepeatedOptionsWins) {
  auto opts = GpgpusimOptions::parse("-a 1\n-b 2\n-a 3\n", "f.config");
  ASSERT_EQ(opts.all().size(), 2u);
  EXPECT_EQ(opts.all()[0].name, "-b");
  EXPECT_EQ(opts.all()[1].name, "-a");
  EXPECT_EQ(opts.all()[1].value, "3");
  EXPECT_EQ(opts.all()[1].line, 3);
}

TEST(GpgpusimOptions, BadTextNamesFileAndLine) {
  EXPECT_EQ(error_of("-a 1\n\nstray\n"), "f.config:3: value 'stray' without an option");
  EXPECT_EQ(error_of("-a 1 2\n"), "f.config:1: value '2' without an option");
  EXPECT_EQ(error_of("-a 1\n-b\n-c 2\n"), "f.config:2: option -b has no value");
  EXPECT_EQ(error_of("-a 1\n-b \"x:\n y\n"), "f.config:2: quoted value is never closed");
}

TEST(GpgpusimCache, ParsesEveryFormOfTheTestedConfigs) {
  auto plain = parse_gpgpusim_cache("N:32:128:4,L:L:m:N:H,S:64:8,8");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->sectored);
  EXPECT_EQ(plain->bytes(), 16u * 1024);
  EXPECT_EQ(plain->write, 'L');
  EXPECT_EQ(plain->set_index, 'H');
  EXPECT_EQ(plain->mshr_entries, 64u);
  EXPECT_EQ(plain->queue_groups, std::vector<std::string>{"8"});
  auto sectored = parse_gpgpusim_cache("S:4:128:256,L:T:m:L:L,A:384:48,16:0,32");
  ASSERT_TRUE(sectored);
  EXPECT_TRUE(sectored->sectored);
  EXPECT_EQ(sectored->bytes(), 128u * 1024);
  EXPECT_EQ(sectored->mshr_merge, 48u);
  EXPECT_EQ(sectored->queue_groups, (std::vector<std::string>{"16:0", "32"}));
  auto bare = parse_gpgpusim_cache("64:128:8");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->ways, 8u);
  EXPECT_FALSE(parse_gpgpusim_cache("S:4:128"));
  EXPECT_FALSE(parse_gpgpusim_cache("S:x:128:4,L:B:m:L:P"));
}

TEST(GpgpusimCache, FitKeepsCapacityAndLowersWays) {
  FittedCache same = fit_gpgpusim_cache(32 * 1024, 64, 1);
  EXPECT_EQ(same.size_kb, 32u);
  EXPECT_EQ(same.ways, 64u);
  EXPECT_EQ(same.adjustment, "");
  FittedCache wide = fit_gpgpusim_cache(64 * 1024, 512, 1);  // one set of 512 ways
  EXPECT_EQ(wide.size_kb, 64u);
  EXPECT_EQ(wide.ways, 64u);
  EXPECT_NE(wide.adjustment.find("512 ways -> 8 sets of 64 ways"), std::string::npos) << wide.adjustment;
  FittedCache odd = fit_gpgpusim_cache(36 * 1024, 96, 1);  // 288 lines: 48 is the most ways up to 64 that divides them
  EXPECT_EQ(odd.ways, 48u);
  FittedCache ragged = fit_gpgpusim_cache(1000 * 3, 4, 1);  // 23 lines: 16 whole KiB lines
  EXPECT_EQ(ragged.size_kb, 2u);
  EXPECT_NE(ragged.adjustment.find("capacity 3000 B -> 2048 B"), std::string::npos) << ragged.adjustment;
  FittedCache slices = fit_gpgpusim_cache(2 * 96 * 1024, 24, 24);
  EXPECT_EQ(slices.size_kb, 4608u);
  EXPECT_EQ(slices.ways, 24u);
}

}  // namespace
}  // namespace gpumux
