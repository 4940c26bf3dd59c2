// Request → result → report for train and memory (report_chains.hpp).
#include "inputs/report_chains.hpp"

#include "report/memory_report.hpp"
#include "report/train_report.hpp"

namespace gpuplan {

Report train_report_for(const TrainRequest& request) { return train_report(request, estimate_train(request)); }

Report memory_report_for(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu, const MemoryOptions& options,
                         bool batch_defaulted) {
  return memory_report(model, layout, gpu, estimate_memory(model, layout, gpu, options), batch_defaulted);
}

}  // namespace gpuplan
