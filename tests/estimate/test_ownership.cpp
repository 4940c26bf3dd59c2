// Rent or buy (issue 18) and markets (issue 16): the ownership model against
// hand-derived numbers, break-even utilisation and months, the market's
// prices and currencies through the CLI, and bad ownership input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuplan/cost.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/ownership.hpp"
#include "report/money_rows.hpp"
#include "run_binary.hpp"

namespace {

using namespace gpuplan;

// An 8×H100 node with every input stated (none from the catalog).
OwnershipInputs stated_node() {
  OwnershipInputs in;
  in.currency = Currency::kUsd;
  in.gpus_per_node = 8;
  in.server_price_per_node.value = 300000;
  in.network_per_node.value = 20000;
  in.life_years.value = 4;
  in.resale_fraction.value = 0.25;
  in.node_power_kw.value = 6.2;
  in.pue.value = 1.25;
  in.electricity_per_kwh.value = 0.10;
  in.colocation_per_kw_month.value = 150;
  in.staff_cost_per_engineer_year.value = 120000;
  in.nodes_per_engineer.value = 40;
  in.financing_rate.value = 0.06;
  in.fleet_utilisation.value = 0.5;
  return in;
}

TEST(Ownership, HourlyCostOfAnOwnedH100NodeByHand) {
  const OwnedNodeCost c = owned_node_cost(stated_node());
  // capital       = 300,000 + 20,000                     = 320,000 USD
  // depreciation  = 320,000 × (1 − 0.25) / 4 years       =  60,000 USD/year
  // financing     = 6% × 320,000 × (1 + 0.25) / 2         =  12,000 USD/year (average book value)
  // machine room  = 6.2 kW × 150 USD/kW-month × 12        =  11,160 USD/year
  // staff         = 120,000 / 40 nodes                    =   3,000 USD/year
  // fixed         = 86,160 USD/year / 8,760 h             = 9.835616 USD per node-hour
  // power         = 6.2 kW × PUE 1.25 × 0.10 USD/kWh      = 0.775 USD per busy node-hour
  EXPECT_DOUBLE_EQ(c.capital, 320000);
  EXPECT_DOUBLE_EQ(c.depreciation_per_year, 60000);
  EXPECT_DOUBLE_EQ(c.financing_per_year, 12000);
  EXPECT_NEAR(c.colocation_per_year, 11160, 1e-9);
  EXPECT_DOUBLE_EQ(c.staff_per_year, 3000);
  EXPECT_NEAR(c.fixed_per_hour, 86160.0 / 8760.0, 1e-12);
  EXPECT_NEAR(c.energy_per_busy_hour, 0.775, 1e-12);
  // Busy half the hours: 9.835616 / 0.5 + 0.775 = 20.446233 per node-hour = 2.555779 per GPU-hour.
  EXPECT_NEAR(c.per_busy_hour(0.5), 20.446233, 1e-6);
  EXPECT_NEAR(c.per_busy_hour(0.5) / 8, 2.555779, 1e-6);
}

TEST(Ownership, BreakEvenUtilisationIsWhereOwnedEqualsRented) {
  const OwnedNodeCost c = owned_node_cost(stated_node());
  // Renting at 2.49 USD/GPU-h = 19.92 per node-hour: u* = 9.835616 / (19.92 − 0.775) = 0.513743.
  const auto u = break_even_utilisation(c, 19.92);
  ASSERT_TRUE(u.has_value());
  EXPECT_NEAR(*u, 0.513743, 1e-6);
  EXPECT_NEAR(c.per_busy_hour(*u), 19.92, 1e-9);  // owned = rented there
  // Renting below the fixed + power cost at 100%: never.
  EXPECT_FALSE(break_even_utilisation(c, 9.835616 + 0.775 - 0.01).has_value());
  // Payback at 50% against 19.92: saved per month = 0.5 × 730 × (19.92 − 0.775) − (12,000 + 11,160 + 3,000) / 12
  //   = 6,987.925 − 2,180 = 4,807.925; 320,000 / 4,807.925 = 66.556 months.
  const auto months = payback_months(c, 19.92, 0.5);
  ASSERT_TRUE(months.has_value());
  EXPECT_NEAR(*months, 320000 / 4807.925, 1e-6);
  EXPECT_FALSE(payback_months(c, 1.0, 0.5).has_value());
}

TEST(Ownership, CatalogDefaultsPerMarketAreSourcedAndInTheMarketsCurrency) {
  for (Market m : {Market::kCn, Market::kUs}) {
    const OwnershipDefaults& d = ownership_defaults(m);
    EXPECT_EQ(d.currency, market_currency(m));
    for (const SourcedValue* v : {&d.life_years, &d.resale_fraction, &d.host_power_w, &d.pue, &d.electricity_per_kwh, &d.colocation_per_kw_month,
                                  &d.staff_cost_per_engineer_year, &d.nodes_per_engineer, &d.financing_rate, &d.network_per_node, &d.fleet_utilisation}) {
      EXPECT_FALSE(v->source.empty());
      EXPECT_GT(v->value, 0);
    }
    EXPECT_GE(d.pue.value, 1.0);
  }
  ASSERT_NE(server_listing("h800-sxm5-80gb", Market::kCn), nullptr);
  ASSERT_NE(server_listing("h100-sxm5-80gb", Market::kUs), nullptr);
  // The US H100 quote is USD 317,000 (Thinkmate, 2024-08-22).
  EXPECT_DOUBLE_EQ(server_listing("h100-sxm5-80gb", Market::kUs)->price_per_node, 317000);
}

TEST(Ownership, ResolvedInputsRecordConversionsAndThePowerSumAsValues) {
  // resolve_ownership states how it got a value (issue 31): a catalog figure
  // converted into the run's currency, and a node's power summed from its
  // parts; report/rent_or_buy_report.cpp words them.
  const GpuSpec& h100 = find_gpu("h100");
  const OwnershipInputs us = resolve_ownership(h100, 8, Market::kUs, Currency::kCny, {});
  ASSERT_TRUE(us.server_price_per_node.converted_from.has_value());
  EXPECT_EQ(*us.server_price_per_node.converted_from, Currency::kUsd);
  EXPECT_DOUBLE_EQ(us.server_price_per_node.value, convert(317000, Currency::kUsd, Currency::kCny));
  EXPECT_FALSE(us.life_years.converted_from.has_value());  // years are no money
  // 8 × 700 W (H100 SXM TDP, data/gpus.json) + the market's host draw.
  ASSERT_TRUE(us.node_power_sum.has_value());
  EXPECT_TRUE(us.node_power_sum->gpu_w_is_tdp);
  EXPECT_DOUBLE_EQ(us.node_power_kw.value, (8 * 700 + ownership_defaults(Market::kUs).host_power_w.value) / 1000.0);
  // H800 publishes no TDP: the ownership catalog's 700 W, with its source.
  const OwnershipInputs cn = resolve_ownership(find_gpu("h800"), 8, Market::kCn, Currency::kCny, {});
  ASSERT_TRUE(cn.node_power_sum.has_value());
  EXPECT_FALSE(cn.node_power_sum->gpu_w_is_tdp);
  EXPECT_DOUBLE_EQ(cn.node_power_sum->gpu_w, 700);
  EXPECT_FALSE(cn.node_power_sum->gpu_w_source.empty());
  // A stated --own-node-kw is the user's: no sum, source "yours".
  OwnershipOverrides o;
  o.node_power_kw = 9;
  const OwnershipInputs given = resolve_ownership(h100, 8, Market::kUs, Currency::kUsd, o);
  EXPECT_FALSE(given.node_power_sum.has_value());
  EXPECT_EQ(given.node_power_kw.source, "yours");
}

TEST(Ownership, BadInputNamesTheFlag) {
  const GpuSpec& h100 = find_gpu("h100");
  auto refuses = [&](OwnershipOverrides o, const char* field) {
    try {
      resolve_ownership(h100, 8, Market::kUs, Currency::kUsd, o);
      ADD_FAILURE() << field << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), InputError::request_key(field));  // named by request key: "own_server_price"
    }
  };
  OwnershipOverrides o;
  o.life_years = -3;
  refuses(o, "--own-life-years");
  o = {};
  o.pue = 0.9;
  refuses(o, "--pue");
  o = {};
  o.fleet_utilisation = 1.2;
  refuses(o, "--fleet-utilisation");
  o = {};
  o.resale_fraction = 1.5;
  refuses(o, "--own-resale");
  // A GPU without a published server price in that market needs --own-server-price.
  try {
    resolve_ownership(find_gpu("a100-80g"), 8, Market::kUs, Currency::kUsd, {});
    ADD_FAILURE() << "no A100 server listing, yet accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "own_server_price");
  }
}

TEST(Markets, EveryGpuMarketHasAtMostOneDefaultListing) {
  for (const GpuSpec& g : gpu_catalog()) {
    for (Market m : {Market::kCn, Market::kUs}) {
      int defaults = 0;
      for (const PriceQuote* q : prices_for(g.id)) defaults += q->is_default && q->market == m;
      EXPECT_LE(defaults, 1) << g.id << " " << market_code(m);
    }
  }
  // The China default for A100 80GB is a CNY listing with a date.
  const PriceQuote* cn = default_price("a100-sxm4-80gb", Market::kCn);
  ASSERT_NE(cn, nullptr);
  EXPECT_EQ(cn->currency, "CNY");
  EXPECT_FALSE(cn->date.empty());
}

TEST(Markets, MarketChoosesTheListingAndTheCurrency) {
  PriceInput in;
  in.market = Market::kCn;
  const Price cn = resolve_price("a100-sxm4-80gb", in);
  EXPECT_EQ(cn.currency, Currency::kCny);
  EXPECT_DOUBLE_EQ(cn.low_per_gpu_hour, 10.0);  // 2023 China A100/A800 band midpoint
  in.market = Market::kUs;
  const Price us = resolve_price("a100-sxm4-80gb", in);
  EXPECT_EQ(us.currency, Currency::kUsd);
  // The median of the three current US listings (GPUPLAN_TODAY 2026-12-03, as the suite pins it):
  // specialty clouds $1.30 (2026-05), Lambda $1.89 (2026-04), RunPod $2.45 (2026-03-10) → Lambda.
  EXPECT_DOUBLE_EQ(us.low_per_gpu_hour, 1.89);
  EXPECT_EQ(us.median_of, 3);
  EXPECT_TRUE(us.median_of_current);
  EXPECT_FALSE(us.stale);
  // --currency converts: 10 CNY at 7.0796 CNY/USD.
  in.market = Market::kCn;
  in.currency = Currency::kUsd;
  EXPECT_NEAR(resolve_price("a100-sxm4-80gb", in).low_per_gpu_hour, 10.0 / 7.0796, 1e-9);
  // H800 has no US listing: the China one, converted, said so.
  PriceInput h800;
  h800.market = Market::kUs;
  const Price p = resolve_price("h800-sxm5-80gb", h800);
  EXPECT_TRUE(p.from_other_market);
  EXPECT_NEAR(p.low_per_gpu_hour, 12.0 / 7.0796, 1e-9);
  // A named provider of the market.
  PriceInput lambda;
  lambda.market = Market::kUs;
  lambda.provider = "lambda";
  EXPECT_DOUBLE_EQ(resolve_price(find_gpu("h100").id, lambda).low_per_gpu_hour, 2.49);
}

TEST(Markets, PriceSourceIsWordedFromWhereThePriceCameFrom) {
  // resolve_price records where a price came from as values; the report words
  // them (report/money_rows.cpp price_source_note, issue 31).
  // A typed 15 CNY shown in USD with a 20% spot discount: 15 / 7.0796 × 0.8.
  PriceInput typed;
  typed.text = "15cny";
  typed.currency = Currency::kUsd;
  typed.spot = true;
  typed.spot_discount = 0.2;
  const Price t = resolve_price("h100-sxm5-80gb", typed);
  EXPECT_NEAR(t.low_per_gpu_hour, 15.0 / 7.0796 * 0.8, 1e-9);
  EXPECT_EQ(t.typed_currency, Currency::kCny);
  EXPECT_EQ(t.spot_pricing, SpotPricing::kDiscount);
  EXPECT_EQ(price_source_note(t).en, "--price (yours), CNY converted to USD, 20% spot discount");
  EXPECT_EQ(price_source_note(t).zh, "--price（你给出的价格），由 CNY 换算为 USD，竞价优惠 20%");
  // H800 has no US listing: the China estimate, converted, names both markets.
  PriceInput us;
  us.market = Market::kUs;
  const Price h800 = resolve_price("h800-sxm5-80gb", us);
  EXPECT_EQ(h800.asked_market, Market::kUs);
  EXPECT_EQ(h800.market, Market::kCn);
  EXPECT_EQ(price_source_note(h800).en.rfind("no us listing of h800-sxm5-80gb; the cn listing, converted: ", 0), 0u) << price_source_note(h800).en;
  // RunPod's H100 listing has a spot quote; Lambda's A100 none, so 60% off is assumed (seed 004).
  PriceInput runpod;
  runpod.market = Market::kUs;
  runpod.provider = "runpod";
  runpod.spot = true;
  const Price q = resolve_price("h100-sxm5-80gb", runpod);
  EXPECT_EQ(q.spot_pricing, SpotPricing::kQuote);
  const std::string quoted = price_source_note(q).en;
  EXPECT_EQ(quoted.substr(quoted.size() - 12), ", spot quote") << quoted;
  PriceInput lambda;
  lambda.market = Market::kUs;
  lambda.provider = "lambda";
  lambda.spot = true;
  const Price a = resolve_price("a100-sxm4-80gb", lambda);
  EXPECT_EQ(a.spot_pricing, SpotPricing::kAssumed);
  EXPECT_DOUBLE_EQ(a.low_per_gpu_hour, 1.89 * 0.4);
  EXPECT_NE(price_source_note(a).en.find("Lambda ("), std::string::npos);
  EXPECT_NE(price_source_note(a).zh.find("按竞价优惠 60% 估算"), std::string::npos);
}

nlohmann::json json_of(const std::string& args) {
  const auto r = gpuplan_test::run_binary(args + " --format json", "2>/dev/null");
  EXPECT_EQ(r.status, 0) << args;
  return nlohmann::json::parse(r.out);
}

TEST(MarketsCli, TrainPricesInTheMarketsCurrency) {
  // 6 · 7e9 · 1e12 FLOPs / (64 × 312e12 × 0.4) = 5,258,413 s of compute; GPU-hours and cost follow.
  const auto cn = json_of("train --params 7B --tokens 1T --gpu a100-80g --gpus 64 --mfu 0.4 --market cn");
  EXPECT_EQ(cn["cost"]["currency"], "CNY");
  EXPECT_TRUE(cn["cost"]["total"].is_number());
  EXPECT_EQ(cn["cost"]["market"], "cn");
  EXPECT_NEAR(cn["cost"]["per_gpu_hour"].get<double>(), 10.0, 1e-9);
  const auto us = json_of("train --params 7B --tokens 1T --gpu a100-80g --gpus 64 --mfu 0.4 --market us");
  EXPECT_EQ(us["cost"]["currency"], "USD");
  EXPECT_NEAR(us["cost"]["per_gpu_hour"].get<double>(), 1.89, 1e-9);  // Lambda: the median current US listing
  // --lang zh defaults to the China market.
  const auto zh = json_of("train --params 7B --tokens 1T --gpu a100-80g --gpus 64 --mfu 0.4 --lang zh");
  EXPECT_EQ(zh["cost"]["market"], "cn");
  // Same GPU-hours in both markets: cost ratio is the price ratio.
  EXPECT_NEAR(cn["cost"]["total"].get<double>() / us["cost"]["total"].get<double>(), 10.0 / 1.89, 1e-6);
}

TEST(MarketsCli, CompareOwnPrintsRentVsOwnInCny) {
  const std::string args = "train --model llama-3.1-70b --tokens 2T --gpu h800 --gpus 512 --mfu 0.4 --compare-own --market cn";
  const auto j = json_of(args);
  const auto& s = j["rent_vs_own"];
  EXPECT_EQ(s["currency"], "CNY");
  EXPECT_TRUE(s.contains("own_run_cost"));
  EXPECT_TRUE(s.contains("rent_on_demand_run_cost"));
  // 2.7M CNY server + 240,565 CNY network share.
  EXPECT_NEAR(s["own_capital_per_node"].get<double>(), 2940565, 1e-6);
  // Owned cost of the run = node-hours × (fixed/u + power); u = 0.5.
  const double fixed = s["own_fixed_per_node_hour"].get<double>();
  const double power = s["own_energy_per_busy_node_hour"].get<double>();
  EXPECT_NEAR(s["own_run_cost"].get<double>(), s["run_node_hours"].get<double>() * (fixed / 0.5 + power), 1e-3);
  const auto zh = gpuplan_test::run_binary(args + " --lang zh", "2>&1");
  EXPECT_EQ(zh.status, 0);
  EXPECT_NE(zh.out.find("租用还是自建"), std::string::npos);
  EXPECT_NE(zh.out.find("¥"), std::string::npos);
  const auto table = gpuplan_test::run_binary(args, "2>&1");
  EXPECT_NE(table.out.find("Ownership: PUE"), std::string::npos);  // the assumptions are listed
}

TEST(MarketsCli, BadOwnershipInputIsOneSentenceAndExitTwo) {
  const std::string base = "train --model llama-3.1-70b --tokens 2T --gpu h800 --gpus 512 --mfu 0.4 --compare-own --market cn ";
  for (const auto& [flag, field] : {std::pair{"--own-life-years -3", "--own-life-years"}, std::pair{"--pue 0.8", "--pue"},
                                    std::pair{"--fleet-utilisation 1.5", "--fleet-utilisation"}, std::pair{"--market mars", "--market"},
                                    std::pair{"--currency eur", "--currency"}}) {
    const auto r = gpuplan_test::run_binary(base + flag, "2>&1");
    EXPECT_EQ(r.status, 2) << flag << "\n" << r.out;
    EXPECT_NE(r.out.find(field), std::string::npos) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  }
}

TEST(MarketsCli, GpusShowsEveryListingAndFinetuneInferTakeCurrency) {
  const auto g = gpuplan_test::run_binary("gpus h100", "2>&1");
  EXPECT_NE(g.out.find("Lambda"), std::string::npos);
  EXPECT_NE(g.out.find("$4.76/h"), std::string::npos);
  const auto f = json_of("finetune --model llama-2-7b --gpu a100-80g --method lora --samples 10000 --currency cny --market us");
  EXPECT_EQ(f["cost"]["currency"], "CNY");
  EXPECT_EQ(f["cheapest"][0]["currency"], "CNY");
  // H100 in China: the 2024 node rental, ~70,000 CNY / (8 × 730 h) = 12 CNY per GPU-hour.
  const auto i = json_of("infer --model llama-3.1-8b --gpu h100 --market cn");
  EXPECT_DOUBLE_EQ(i["cost"]["per_gpu_hour"].get<double>(), 12.0);
  const auto it = gpuplan_test::run_binary("infer --model llama-3.1-8b --gpu h100 --market cn", "2>&1");
  EXPECT_NE(it.out.find("¥12.00"), std::string::npos) << it.out;
}

}  // namespace

namespace {

TEST(MarketsCli, RankingsCompareOneMarketOnly) {
  // MI300X is listed only in the US market: in the China market it gets no cost column, so it cannot win on cost.
  const auto cn = json_of("plan --model llama-3.1-8b --gpu h100,mi300x --gpus 64 --market cn");
  bool mi300x_priced = false, h100_priced = false;
  for (const auto& rec : cn["comparison"]) {
    if (rec["gpu"] == "mi300x-192gb") mi300x_priced = rec["cost_per_m_tokens"].is_number();
    if (rec["gpu"] == "h100-sxm5-80gb") h100_priced = rec["cost_per_m_tokens"].is_number() && rec["currency"] == "CNY";
  }
  EXPECT_FALSE(mi300x_priced);
  EXPECT_TRUE(h100_priced);
  // The fine-tuning ranking in the China market holds only GPUs China lists, in CNY.
  const auto ft = json_of("finetune --model llama-2-7b --gpu a100-80g --method lora --samples 10000 --market cn");
  for (const auto& rec : ft["cheapest"]) {
    EXPECT_NE(gpuplan::default_price(rec["gpu"].get<std::string>(), gpuplan::Market::kCn), nullptr) << rec.dump();
    EXPECT_EQ(rec["currency"], "CNY");
    EXPECT_TRUE(rec["cost"].is_number());
  }
}

TEST(MarketsCli, ProviderPicksAListingOrListsTheMarketsProviders) {
  const auto j = json_of("train --params 7B --tokens 1T --gpu h100 --gpus 64 --mfu 0.4 --market us --provider lambda");
  EXPECT_DOUBLE_EQ(j["cost"]["per_gpu_hour"].get<double>(), 2.49);
  const auto r = gpuplan_test::run_binary("train --params 7B --tokens 1T --gpu h100 --gpus 64 --mfu 0.4 --market us --provider nosuch", "2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--provider"), std::string::npos);
  EXPECT_NE(r.out.find("Lambda"), std::string::npos);  // the market's providers are named
}

TEST(MarketsCli, SpotAndOnDemandSideBySideInMoneyAndDays) {
  const auto j = json_of("train --params 7B --tokens 1T --gpu a100-80g --gpus 64 --mfu 0.4 --market us");
  const auto& ways = j["rent_options"];
  ASSERT_EQ(ways.size(), 3u);
  EXPECT_EQ(ways[0]["way"], "on_demand");
  EXPECT_EQ(ways[2]["way"], "spot");
  // Lambda A100 SXM, the median current US listing: $1.89 on-demand and no spot quote, so spot is
  // seed 004's 60% off (1.89 × 0.4); reserved = 1.89 × (1 − 0.40).
  EXPECT_DOUBLE_EQ(ways[0]["per_gpu_hour"].get<double>(), 1.89);
  EXPECT_NEAR(ways[1]["per_gpu_hour"].get<double>(), 1.89 * 0.6, 1e-12);
  EXPECT_NEAR(ways[2]["per_gpu_hour"].get<double>(), 1.89 * 0.4, 1e-12);
  // Spot takes more GPU-hours and days than on-demand, by the same factor.
  const double f_hours = ways[2]["gpu_hours"].get<double>() / ways[0]["gpu_hours"].get<double>();
  const double f_days = ways[2]["days"].get<double>() / ways[0]["days"].get<double>();
  EXPECT_GT(f_hours, 1.0);
  EXPECT_NEAR(f_hours, f_days, 1e-12);
  EXPECT_NEAR(ways[0]["days"].get<double>(), j["time"]["wall_clock_s"].get<double>() / 86400, 1e-9);
}

}  // namespace

// Issue 30: the default price is the median of the market's current listings,
// named with its range, and a listing over 12 months old is said to be stale.
TEST(MarketsCli, DefaultIsTheMedianCurrentListingAndOldOnesAreStale) {
  // H100 in the US on 2026-12-03: six listings dated within 12 months, $1.65 (Vast.ai), 2.49 (Lambda),
  // 2.69 (RunPod Secure Cloud), 3.00 (specialty clouds), 4.76 (RunPod list), 6.88 (AWS p5); the lower
  // middle of six is the third, $2.69. The undated AWS listings ($12.29, $4.916) are stale and left out.
  PriceInput us;
  us.market = Market::kUs;
  const Price h100 = resolve_price("h100-sxm5-80gb", us);
  EXPECT_DOUBLE_EQ(h100.low_per_gpu_hour, 2.69);
  EXPECT_EQ(h100.median_of, 6);
  const auto t = gpuplan_test::run_binary("train --params 8B --tokens 1T --gpu h100 --gpus 64 --mfu 0.4 --market us", "2>&1");
  EXPECT_EQ(t.status, 0) << t.out;
  EXPECT_NE(t.out.find("median of 6 current us listings ($1.65–$6.88/h): RunPod (Secure Cloud)"), std::string::npos) << t.out;
  // A800 in China: the only listing is dated 2023, so stale on 2026-12-03, and not on 2024-06-01.
  const std::string a800 = "train --params 7B --tokens 1T --gpu a800 --gpus 64 --mfu 0.4 --market cn";
  const auto old = gpuplan_test::run_binary(a800, "2>&1", "GPUPLAN_TODAY=2026-12-03");
  EXPECT_NE(old.out.find("stale: dated 2023 is more than 12 months before 2026-12-03"), std::string::npos) << old.out;
  const auto then = gpuplan_test::run_binary(a800, "2>&1", "GPUPLAN_TODAY=2024-06-01");
  EXPECT_EQ(then.status, 0) << then.out;
  EXPECT_EQ(then.out.find("stale"), std::string::npos) << then.out;
  // A malformed GPUPLAN_TODAY is one sentence and exit 2, not the clock.
  const auto bad = gpuplan_test::run_binary(a800, "2>&1", "GPUPLAN_TODAY=2026-13-40");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("GPUPLAN_TODAY must be a date as YYYY-MM-DD (got '2026-13-40')"), std::string::npos) << bad.out;
  // gpus lists every listing with its staleness.
  const auto g = gpuplan_test::run_binary("gpus a800 --format json", "2>/dev/null");
  EXPECT_NE(g.out.find("\"stale\": \"stale\""), std::string::npos) << g.out;
}

// Issue 30: one rule for a market without a listing of the GPU. train converts
// the other market's price as infer and finetune do, and says so.
TEST(MarketsCli, TrainConvertsTheOtherMarketsListingLikeInfer) {
  const auto j = json_of("train --params 8B --tokens 1T --gpu h800 --gpus 64 --mfu 0.4 --market us");
  EXPECT_EQ(j["cost"]["currency"], "USD");
  // China's H800 estimate, 12 CNY per GPU-hour, at 7.0796 CNY per USD.
  EXPECT_NEAR(j["cost"]["per_gpu_hour"].get<double>(), 12.0 / 7.0796, 1e-9);
  EXPECT_NE(j["cost"]["source"].get<std::string>().find("no us listing of h800-sxm5-80gb; the cn listing, converted"), std::string::npos);
}
