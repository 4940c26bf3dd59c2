// The best MFU published for each GPU class (data/published_mfu.json), for
// the plausibility check of a predicted MFU, and the class a GPU belongs to
// (which also groups prediction errors in data/intervals.json).
#pragma once
#include <optional>
#include <string>

#include "gpuplan/hardware.hpp"

namespace gpuplan {

struct PublishedMfu {
  std::string gpu_class;     // "ampere", "hopper", ...
  double best_mfu = 0;       // fraction of the dense peak of the precision asked
  bool from_class = false;   // false: the class has none published, this is the best on any accelerator
  std::string run;           // which run reached it
  std::string run_zh;        // the same in Chinese (data field run_zh)
  std::string source;
};

// The class of a catalog GPU id ("other" when the table does not list it).
std::string gpu_class(const std::string& gpu_id);
// The best published MFU for a GPU and precision (fp16 reads bf16); the
// table's "any" row where the class has none.
PublishedMfu published_mfu(const std::string& gpu_id, Precision precision);

}  // namespace gpuplan
