// A sentence a result carries for people, in both interface languages.
//
// Estimators never see --lang: where a result explains itself in words (a
// default a validation case took, a framework default applied), it carries
// both, and the front end shows the one the user chose. JSON keeps `en`.
#pragma once
#include <string>

namespace gpuplan {

struct Bilingual {
  std::string en;
  std::string zh;
  bool operator==(const Bilingual&) const = default;
};

}  // namespace gpuplan
