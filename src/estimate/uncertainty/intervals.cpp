// Prediction intervals from residuals on published runs (intervals.hpp).
#include "gpuplan/intervals.hpp"
#include "hardware/hardware_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "data/embedded_data.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/published_mfu.hpp"
#include "estimate/uncertainty/interval_json.hpp"

namespace gpuplan {
namespace {

// Back-off levels, finest first: how many of (first dimension, framework,
// class) a group pins. The first dimension is chosen per kind, held out, by
// gpuplan validate (IntervalTable::first_split): MoE or dense (different
// physics: token dispatch, grouped GEMMs, expert-parallel overlap; MoE runs
// 20–30% slower than predicted, dense within a few %), layout stated or
// planned (a planned layout carries the gap between planned and achieved
// throughput), or neither. No single one suits every kind on the shared
// runs: train_throughput by MoE or dense scored median |error| 7.7% against
// 9.8% by layout, whose groups held too few sources each and carried a
// neighbour's bias onto accurate stacks; train_memory by MoE or dense had 63%
// of cases inside its 80% ranges against 77.5% by layout (docs/intervals.md).
constexpr int kLevels = 4;

ResidualGroup key_at(const PredictionContext& c, int level, FirstSplit first) {
  ResidualGroup g;
  g.kind = c.kind;
  if (level <= 2 && first == FirstSplit::kMoe) g.moe = c.moe;
  if (level <= 2 && first == FirstSplit::kLayout) g.layout_stated = c.layout_stated;
  if (level <= 1) g.framework_stated = c.framework_stated;
  if (level == 0) g.gpu_class = c.gpu_class;
  return g;
}

bool same_key(const ResidualGroup& a, const ResidualGroup& b) {
  return a.kind == b.kind && a.moe == b.moe && a.layout_stated == b.layout_stated && a.framework_stated == b.framework_stated &&
         a.gpu_class == b.gpu_class;
}

std::string group_name(const ResidualGroup& g) {
  std::string s = g.kind;
  if (g.moe) s += *g.moe ? ", MoE" : ", dense";
  if (g.layout_stated) s += *g.layout_stated ? ", stated layout" : ", planned layout";
  if (g.framework_stated) s += *g.framework_stated ? ", stated framework" : ", generic framework";
  if (!g.gpu_class.empty()) s += ", " + g.gpu_class;
  return s;
}

std::string group_name_zh(const ResidualGroup& g) {
  std::string s = case_kind_zh(g.kind);
  if (g.moe) s += *g.moe ? "，MoE 模型" : "，稠密模型";
  if (g.layout_stated) s += *g.layout_stated ? "，给定的并行方案" : "，规划的并行方案";
  if (g.framework_stated) s += *g.framework_stated ? "，给定的框架" : "，通用框架";
  if (!g.gpu_class.empty()) s += "，" + gpu_class_zh(g.gpu_class);
  return s;
}

// The upper quantile at p (≥ 0.5) of weighted points. With enough
// independent sources the weighted ECDF is read at its midpoints (Hazen's
// plotting positions, (cum − w/2)/W). With fewer, point i sits at F_i·n/(n+1),
// F_i its cumulative weight share and n the source count: the i/(n+1) of split
// conformal prediction, so a range from few sources widens to their extremes
// instead of claiming a tail it has not seen.
double upper_quantile(const std::vector<std::pair<double, double>>& pts, double n_eff, bool few_sources, double p) {
  double total = 0;
  for (const auto& [x, w] : pts) total += w;
  const double scale = n_eff / (n_eff + 1);
  double cum = 0, prev_pos = 0, prev_x = pts.front().first;
  for (size_t i = 0; i < pts.size(); ++i) {
    cum += pts[i].second;
    const double pos = few_sources ? cum / total * scale : (cum - pts[i].second / 2) / total;
    if (p <= pos) {
      if (i == 0 || pos <= prev_pos) return pts[i].first;
      return prev_x + (p - prev_pos) / (pos - prev_pos) * (pts[i].first - prev_x);
    }
    prev_pos = pos;
    prev_x = pts[i].first;
  }
  return pts.back().first;
}

double quantile(const ResidualGroup& g, int min_sources, double p) {
  const bool few = g.sources < min_sources;
  if (p >= 0.5) return upper_quantile(g.points, g.effective_n, few, p);
  std::vector<std::pair<double, double>> mirrored;
  for (auto it = g.points.rbegin(); it != g.points.rend(); ++it) mirrored.emplace_back(-it->first, it->second);
  return -upper_quantile(mirrored, g.effective_n, few, 1 - p);
}

const ResidualGroup* find_group(const IntervalTable& t, const PredictionContext& ctx) {
  const FirstSplit first = t.split_of(ctx.kind);
  for (int level = 0; level < kLevels; ++level) {
    const ResidualGroup key = key_at(ctx, level, first);
    for (const auto& g : t.groups) {
      if (same_key(g, key) && (g.sources >= t.min_sources || level == kLevels - 1) && !g.points.empty()) return &g;
    }
  }
  return nullptr;
}

}  // namespace

namespace {

// Every residual's group at every back-off level, in the order the groups
// first appear (level by level, then residual by residual), with the members
// in residual order and each member's weight: 1 / (its source's cases in the
// group), so that each source weighs 1 in all.
struct Grouping {
  struct Group {
    ResidualGroup key;
    int level = 0;                  // back-off level, 0 the finest
    std::vector<size_t> members;    // indices into the residuals, ascending
    std::vector<double> weights;    // beside members
    std::set<std::string> sources;  // distinct sources among the members
  };
  std::vector<Group> groups;
};

Grouping group_residuals(const std::vector<Residual>& residuals, const IntervalTable& t) {
  Grouping out;
  for (int level = 0; level < kLevels; ++level) {
    const size_t first = out.groups.size();
    for (size_t i = 0; i < residuals.size(); ++i) {
      const ResidualGroup key = key_at(residuals[i].context, level, t.split_of(residuals[i].context.kind));
      // A key a coarser level repeats (a kind without a first split: kind
      // alone at levels 2 and 3) is the group already made, not a second one.
      size_t g = 0;
      while (g < out.groups.size() && !same_key(out.groups[g].key, key)) ++g;
      if (g < first) continue;
      if (g == out.groups.size()) out.groups.push_back(Grouping::Group{key, level, {}, {}, {}});
      out.groups[g].members.push_back(i);
    }
    for (size_t g = first; g < out.groups.size(); ++g) {
      Grouping::Group& grp = out.groups[g];
      std::map<std::string, int> per_source;
      for (const size_t i : grp.members) ++per_source[residuals[i].source];
      for (const size_t i : grp.members) grp.weights.push_back(1.0 / per_source[residuals[i].source]);
      for (const auto& [source, n] : per_source) grp.sources.insert(source);
    }
  }
  return out;
}

// The table of every residual except `without`'s (empty: all of them). A
// source's weights within a group do not depend on the other sources, so
// leaving one out only drops its members: the rest keep their weights and
// order, and a group left empty is not made.
IntervalTable table_from(const std::vector<Residual>& residuals, const Grouping& grouping, IntervalTable t,
                         const std::string* without) {
  std::vector<std::pair<size_t, const Grouping::Group*>> kept;  // (first remaining member, group) per level
  auto flush = [&]() {
    std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [first_member, grp] : kept) {
      ResidualGroup g = grp->key;
      double sum_w2 = 0;
      for (size_t j = 0; j < grp->members.size(); ++j) {
        const Residual& r = residuals[grp->members[j]];
        if (without && r.source == *without) continue;
        const double w = grp->weights[j];
        g.points.emplace_back(r.log_ratio, w);
        sum_w2 += w * w;
      }
      g.cases = static_cast<int>(g.points.size());
      g.sources = static_cast<int>(grp->sources.size()) - (without && grp->sources.count(*without) ? 1 : 0);
      std::sort(g.points.begin(), g.points.end());
      // Cases of one source share its setup and its errors, so the count of
      // independent residuals lies between the sources and the cases: Kish's
      // effective size of the weights. Below min_sources sources only the
      // sources count, and that n sets the conformal positions.
      const double kish = sum_w2 > 0 ? g.sources * static_cast<double>(g.sources) / sum_w2 : 0;
      g.effective_n = g.sources >= t.min_sources ? kish : static_cast<double>(g.sources);
      t.groups.push_back(std::move(g));
    }
    kept.clear();
  };
  int level = -1;
  for (const Grouping::Group& grp : grouping.groups) {
    if (grp.level != level) flush(), level = grp.level;  // a level's groups are contiguous
    size_t first_member = residuals.size();
    for (const size_t i : grp.members) {
      if (!without || residuals[i].source != *without) {
        first_member = i;
        break;
      }
    }
    if (first_member < residuals.size()) kept.emplace_back(first_member, &grp);
  }
  flush();
  return t;
}

IntervalTable empty_table(int min_sources, const std::map<std::string, FirstSplit>& split) {
  IntervalTable t;
  t.min_sources = min_sources;
  for (const auto& [kind, first] : split) {
    if (first != FirstSplit::kNone) t.first_split[kind] = first;
  }
  return t;
}

}  // namespace

IntervalTable derive_interval_table(const std::vector<Residual>& residuals, int min_sources,
                                    const std::map<std::string, FirstSplit>& split) {
  const IntervalTable t = empty_table(min_sources, split);
  return table_from(residuals, group_residuals(residuals, t), t, nullptr);
}

std::map<std::string, IntervalTable> derive_held_out_tables(const std::vector<Residual>& residuals, int min_sources,
                                                            const std::map<std::string, FirstSplit>& split) {
  const IntervalTable t = empty_table(min_sources, split);
  const Grouping grouping = group_residuals(residuals, t);
  std::map<std::string, IntervalTable> out;
  for (const Residual& r : residuals) {
    if (!out.count(r.source)) out.emplace(r.source, table_from(residuals, grouping, t, &r.source));
  }
  return out;
}

std::string case_kind_zh(const std::string& kind) {
  if (kind == "train_memory") return "训练显存";
  if (kind == "train_throughput") return "训练吞吐";
  if (kind == "train_total") return "训练总卡时";
  if (kind == "inference") return "推理";
  return kind;
}

double check_level(double level, const char* field) {
  if (!(level >= 0.5 && level <= 0.99)) {
    throw InputError(field, fmt::format("{} must be a fraction from 0.5 to 0.99 (0.8 = 80%); got {}.", field, level),
                     fmt::format("{} 须为 0.5 到 0.99 之间的比例（0.8 即 80%）；输入为 {}。", field, level));
  }
  return level;
}

bool IntervalTable::centred_on_physics(const std::string& kind) const {
  return std::find(physics_centred.begin(), physics_centred.end(), kind) != physics_centred.end();
}

const char* first_split_id(FirstSplit split) {
  return split == FirstSplit::kMoe ? "model" : split == FirstSplit::kLayout ? "layout" : "";
}

FirstSplit IntervalTable::split_of(const std::string& kind) const {
  const auto it = first_split.find(kind);
  return it == first_split.end() ? FirstSplit::kNone : it->second;
}

namespace {

// ln of the factor at p, moved so that the median sits on the physics where
// the table centres the kind there.
double centred_quantile(const IntervalTable& t, const ResidualGroup& g, const std::string& kind, double p) {
  const double shift = t.centred_on_physics(kind) ? quantile(g, t.min_sources, 0.5) : 0.0;
  return quantile(g, t.min_sources, p) - shift;
}

}  // namespace

std::optional<ErrorRange> error_range(const IntervalTable& t, const PredictionContext& ctx, double level) {
  const ResidualGroup* g = find_group(t, ctx);
  if (!g) return std::nullopt;
  ErrorRange r;
  r.level = level;
  r.low = std::exp(centred_quantile(t, *g, ctx.kind, (1 - level) / 2));
  r.high = std::exp(centred_quantile(t, *g, ctx.kind, (1 + level) / 2));
  r.median = std::exp(centred_quantile(t, *g, ctx.kind, 0.5));
  r.group = group_name(*g);
  r.group_zh = group_name_zh(*g);
  r.cases = g->cases;
  r.sources = g->sources;
  return r;
}

std::optional<double> error_quantile(const IntervalTable& t, const PredictionContext& ctx, double p) {
  const ResidualGroup* g = find_group(t, ctx);
  if (!g) return std::nullopt;
  return std::exp(centred_quantile(t, *g, ctx.kind, p));
}

nlohmann::json interval_table_to_json(const IntervalTable& t, const std::string& cases_file) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : t.groups) {
    nlohmann::json o = {{"kind", g.kind}};
    if (g.moe) o["model"] = *g.moe ? "moe" : "dense";
    if (g.layout_stated) o["layout"] = *g.layout_stated ? "stated" : "planned";
    if (g.framework_stated) o["framework"] = *g.framework_stated ? "stated" : "generic";
    if (!g.gpu_class.empty()) o["gpu_class"] = g.gpu_class;
    o["cases"] = g.cases;
    o["sources"] = g.sources;
    o["effective_n"] = g.effective_n;
    // Readable summary (the points are what is used).
    o["range_80"] = {std::exp(centred_quantile(t, g, g.kind, 0.1)), std::exp(centred_quantile(t, g, g.kind, 0.9))};
    nlohmann::json pts = nlohmann::json::array();
    for (const auto& [x, w] : g.points) pts.push_back({x, w});
    o["points"] = pts;
    groups.push_back(o);
  }
  nlohmann::json first_split = nlohmann::json::object();
  for (const auto& [kind, first] : t.first_split) {
    if (first != FirstSplit::kNone) first_split[kind] = first_split_id(first);
  }
  return {{"gpuplan_intervals", 1},
          {"source", fmt::format("gpuplan's own residuals on {} (gpuplan validate {} --derive-intervals > data/intervals.json)", cases_file, cases_file)},
          {"method", "residual ln(actual/predicted) of a cost-like quantity (rates inverted); groups by kind, its first_split "
                     "dimension, framework stated or generic, GPU class, backing off to coarser groups below min_sources sources; each source "
                     "weighs 1; quantiles at the weighted ECDF's midpoints, or at F·n/(n+1) over n sources where a group has fewer "
                     "than min_sources; range_80 = factors on the prediction"},
          {"min_sources", t.min_sources},
          {"first_split", first_split},
          {"split", "each kind's groups part first by its first_split dimension (model: MoE or dense; layout: stated or planned; "
                    "absent: neither), chosen per kind by gpuplan validate as the one whose leave-one-source-out predictive "
                    "distributions have the lowest CRPS (quantile loss averaged over levels 0.05-0.95; Gneiting & Raftery 2007)"},
          {"physics_centred", t.physics_centred},
          {"centre", "the central number of a kind is physics × the median factor of its group, except the physics_centred kinds: "
                     "there, leave-one-source-out, the median correction predicted worse than the physics alone (median and mean "
                     "absolute error both), so the physics "
                     "is the centre and the range is the group's spread around its median (gpuplan validate chooses it per kind)"},
          {"groups", groups}};
}

IntervalTable interval_table_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("groups") || !j["groups"].is_array()) {
    throw InputError("intervals", "an interval table needs a 'groups' array (gpuplan validate --derive-intervals writes one).",
                     "区间表需要 'groups' 数组（gpuplan validate --derive-intervals 会写出）。");
  }
  IntervalTable t;
  t.min_sources = j.value("min_sources", 4);
  if (j.contains("physics_centred") && j["physics_centred"].is_array()) {
    for (const auto& k : j["physics_centred"]) {
      if (k.is_string()) t.physics_centred.push_back(k.get<std::string>());
    }
  }
  if (j.contains("first_split") && j["first_split"].is_object()) {
    for (const auto& [kind, dim] : j["first_split"].items()) {
      for (const FirstSplit f : {FirstSplit::kMoe, FirstSplit::kLayout}) {
        if (dim == first_split_id(f)) t.first_split[kind] = f;
      }
    }
  }
  for (const auto& o : j["groups"]) {
    ResidualGroup g;
    g.kind = o.value("kind", "");
    if (o.contains("model")) g.moe = o["model"] == "moe";
    if (o.contains("layout")) g.layout_stated = o["layout"] == "stated";
    if (o.contains("framework")) g.framework_stated = o["framework"] == "stated";
    g.gpu_class = o.value("gpu_class", "");
    g.cases = o.value("cases", 0);
    g.sources = o.value("sources", 0);
    g.effective_n = o.value("effective_n", 0.0);
    const nlohmann::json points = o.value("points", nlohmann::json::array());
    for (const auto& p : points) g.points.emplace_back(p.at(0).get<double>(), p.at(1).get<double>());
    if (g.kind.empty() || g.points.empty() || !(g.effective_n > 0)) {
      throw InputError("intervals", "every group of an interval table needs a kind, points and a positive effective_n.",
                       "区间表的每一组都需要 kind、points 和正的 effective_n。");
    }
    t.groups.push_back(std::move(g));
  }
  return t;
}

const IntervalTable& shipped_interval_table() {
  static const IntervalTable table = [] {
    for (const auto& f : embedded_files()) {
      if (f.path == "intervals.json") return interval_table_from_json(nlohmann::json::parse(f.content));
    }
    return IntervalTable{};
  }();
  return table;
}


}  // namespace gpuplan
