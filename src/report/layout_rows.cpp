#include "layout_rows.hpp"

namespace gpuplan {

std::vector<Row> layout_rows(const Layout& l) {
  auto count = [](const char* key, const char* en, const char* zh, double v) {
    return Row{key, en, zh, v, Unit::kCount, "", {}, Audience::kPrograms};
  };
  std::vector<Row> rows{count("tp", "Tensor parallel", "张量并行", l.tp),
                        count("pp", "Pipeline stages", "流水线级数", l.pp),
                        count("dp", "Data-parallel replicas", "数据并行副本", l.dp),
                        count("cp", "Context parallel", "上下文并行", l.cp),
                        count("ep", "Expert parallel", "专家并行", l.ep),
                        count("vp", "Virtual stages per rank", "每卡虚拟流水级", l.vp),
                        count("micro_batch", "Micro-batch", "微批", static_cast<double>(l.micro_batch)),
                        count("global_batch", "Global batch", "全局批", static_cast<double>(l.effective_global_batch())),
                        count("zero", "ZeRO stage", "ZeRO 阶段", l.zero_stage),
                        Row{"recompute", "Recompute", "重计算", 0, Unit::kText, recompute_name(l.recompute), {}, Audience::kPrograms},
                        Row{"sequence_parallel", "Sequence parallel", "序列并行", l.sequence_parallel ? 1.0 : 0.0, Unit::kFlag, "", {},
                            Audience::kPrograms}};
  if (l.first_stage_layers) rows.push_back(count("first_stage_layers", "First-stage layers", "首级层数", *l.first_stage_layers));
  if (l.last_stage_layers) rows.push_back(count("last_stage_layers", "Last-stage layers", "末级层数", *l.last_stage_layers));
  return rows;
}

}  // namespace gpuplan
