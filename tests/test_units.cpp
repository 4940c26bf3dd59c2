#include <gtest/gtest.h>

#include "gpuplan/error.hpp"
#include "gpuplan/units.hpp"

using namespace gpuplan;

TEST(Units, ParsesCountsWithSuffixes) {
  EXPECT_DOUBLE_EQ(parse_count("7e9", "--params"), 7e9);
  EXPECT_DOUBLE_EQ(parse_count("70B", "--params"), 70e9);
  EXPECT_DOUBLE_EQ(parse_count("15T", "--tokens"), 15e12);
  EXPECT_DOUBLE_EQ(parse_count("1.5M", "--samples"), 1.5e6);
  EXPECT_DOUBLE_EQ(parse_count("2,048", "--gpus"), 2048);
}

TEST(Units, RejectsBadCounts) {
  EXPECT_THROW(parse_count("-1", "--tokens"), InputError);
  EXPECT_THROW(parse_count("0", "--tokens"), InputError);
  EXPECT_THROW(parse_count("nan", "--tokens"), InputError);
  EXPECT_THROW(parse_count("inf", "--tokens"), InputError);
  EXPECT_THROW(parse_count("1e400", "--tokens"), InputError);
  EXPECT_THROW(parse_count("12X", "--tokens"), InputError);
  EXPECT_THROW(parse_count("", "--tokens"), InputError);
}

TEST(Units, ParsesDurationsAndFractions) {
  EXPECT_DOUBLE_EQ(parse_duration_s("90d", "--deadline"), 90 * 86400.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("12h", "--deadline"), 12 * 3600.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("2w", "--deadline"), 14 * 86400.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("7", "--deadline"), 7 * 86400.0);
  EXPECT_DOUBLE_EQ(parse_fraction("40%", "--mfu"), 0.4);
  EXPECT_DOUBLE_EQ(parse_fraction("0.4", "--mfu"), 0.4);
  EXPECT_THROW(parse_fraction("1.5", "--mfu"), InputError);
  EXPECT_THROW(parse_fraction("0", "--mfu"), InputError);
  EXPECT_THROW(parse_duration_s("-3d", "--deadline"), InputError);
}

TEST(Units, FormatsForPeople) {
  EXPECT_EQ(format_thousands(93483.4), "93,483");
  EXPECT_EQ(format_thousands(1402236.0), "1,402,236");
  EXPECT_EQ(format_si(3.15e23, "FLOP"), "315 ZFLOP");
  EXPECT_EQ(format_duration(7 * 86400.0), "7.00 days");
}
