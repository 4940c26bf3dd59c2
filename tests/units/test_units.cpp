#include <gtest/gtest.h>

#include "gpuplan/error.hpp"
#include "gpuplan/units.hpp"
#include "units/quantity_text.hpp"

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

// Counts as Chinese engineers write them: 万 = 1e4 and 亿 = 1e8, stacking.
TEST(Units, ParsesChineseMultipliers) {
  EXPECT_DOUBLE_EQ(parse_count("1万亿", "--tokens"), 1e12);   // 1e4 · 1e8: a trillion
  EXPECT_DOUBLE_EQ(parse_count("2000亿", "--tokens"), 2e11);
  EXPECT_DOUBLE_EQ(parse_count("1.5万亿", "--tokens"), 1.5e12);
  EXPECT_DOUBLE_EQ(parse_count("70亿", "--params"), 7e9);     // Qwen-7B's "70亿参数"
  EXPECT_DOUBLE_EQ(parse_count("5万", "--samples"), 5e4);
  EXPECT_DOUBLE_EQ(parse_count("3千亿", "--tokens"), 3e11);
  EXPECT_DOUBLE_EQ(parse_count("1 万亿", "--tokens"), 1e12);  // spaces are dropped
  // A multiplier with no number, an SI suffix after 亿, or an unknown unit is refused.
  EXPECT_THROW(parse_count("万亿", "--tokens"), InputError);
  EXPECT_THROW(parse_count("1亿T", "--tokens"), InputError);
  EXPECT_THROW(parse_count("1兆", "--tokens"), InputError);  // 兆 is 1e6 or 1e12 by region: ambiguous
  try {
    parse_count("1万亿x", "--tokens");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "tokens");
    EXPECT_NE(std::string(e.what()).find("万"), std::string::npos);
  }
}

TEST(Units, ParsesChineseAndEnglishDurations) {
  const double day = 86400.0;
  EXPECT_DOUBLE_EQ(parse_duration_s("30天", "--deadline"), 30 * day);
  EXPECT_DOUBLE_EQ(parse_duration_s("1个月", "--deadline"), 30 * day);  // a month is 30 days, as 30天
  EXPECT_DOUBLE_EQ(parse_duration_s("1month", "--deadline"), 30 * day);
  EXPECT_DOUBLE_EQ(parse_duration_s("2 months", "--deadline"), 60 * day);
  EXPECT_DOUBLE_EQ(parse_duration_s("1.5个月", "--deadline"), 45 * day);
  EXPECT_DOUBLE_EQ(parse_duration_s("2周", "--deadline"), 14 * day);
  EXPECT_DOUBLE_EQ(parse_duration_s("36小时", "--deadline"), 36 * 3600.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("90分钟", "--checkpoint-interval"), 90 * 60.0);
  EXPECT_DOUBLE_EQ(parse_duration_s("1年", "--deadline"), 365 * day);
  EXPECT_THROW(parse_duration_s("1fortnight", "--deadline"), InputError);
  EXPECT_THROW(parse_duration_s("个月", "--deadline"), InputError);
}

TEST(Units, PlainNumbersNeedNoEcho) {
  EXPECT_TRUE(is_plain_number("2048"));
  EXPECT_TRUE(is_plain_number("2,048"));
  EXPECT_TRUE(is_plain_number("0.4"));
  EXPECT_FALSE(is_plain_number("1T"));
  EXPECT_FALSE(is_plain_number("1万亿"));
  EXPECT_FALSE(is_plain_number("7e9"));
  EXPECT_FALSE(is_plain_number(""));
}
