// A sentence in both interface languages: the one type for every such pair
// (a report's notes, a refusal's reason, a default a validation case took).
//
// Estimators never see --lang: the front end shows the language the user
// chose, and JSON keeps `en`. Results carry values and reason codes; the
// sentences are made in src/report/ (issue 31), except an InputError's,
// made where it is thrown (gpuplan/error.hpp).
#pragma once
#include <string>

namespace gpuplan {

struct Bilingual {
  std::string en;
  std::string zh;
  bool empty() const { return en.empty(); }
  bool operator==(const Bilingual&) const = default;
};

}  // namespace gpuplan
