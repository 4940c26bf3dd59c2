// One error type for bad input. Every front end turns it into one sentence
// naming the field and what is allowed, and exit status 2 (or HTTP 400).
//
// The sentence comes in English and in Chinese, both built where the error is
// thrown (the place that knows the field, the value and what is allowed), so a
// front end only chooses: the CLI prints zh() under --lang zh, the web API
// returns both and the page shows the one of its language. what() stays
// English, for logs.
//
// Naming the input (issue 31). field() is the input's request key, the name
// of its field as a request spells it ("seq_len", "gpus", "config"), however
// the throwing site wrote it. Inside a sentence an input is written as the
// command line's flag ("--seq-len must be ..."), and a front end that speaks
// request keys renders it with in_request_keys(): Python says "seq_len must be
// ...", the CLI prints the sentence as it is, and the web API returns it as it
// is with field() beside it (its page turns each --flag into the form's label).
#pragma once
#include <stdexcept>
#include <string>

#include "gpuplan/bilingual.hpp"

namespace gpuplan {

// Why something is refused, in both languages: what a helper returns for its
// caller to put into an InputError's sentence ("{flag}: {why}."); empty: not refused.
using Reason = Bilingual;

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& field, const std::string& en, std::string zh)
      : std::runtime_error(en), field_(request_key(field)), zh_(std::move(zh)) {}
  // English only: kept for sites not yet translated (zh() then falls back to
  // the English). scripts/count_input_errors.py counts the sites left.
  InputError(const std::string& field, const std::string& message)
      : std::runtime_error(message), field_(request_key(field)) {}

  // "--seq-len" → "seq_len"; a name that is not a flag ("config.json",
  // "train.framework", "GPUPLAN_LANG") is its own key.
  static std::string request_key(const std::string& field) {
    if (field.rfind("--", 0) != 0) return field;
    std::string key = field.substr(2);
    for (char& c : key) {
      if (c == '-') c = '_';
    }
    return key;
  }

  const std::string& field() const { return field_; }
  // The sentence in Chinese; the English one where the site has no zh twin.
  std::string zh() const { return zh_.empty() ? std::string(what()) : zh_; }
  bool has_zh() const { return !zh_.empty(); }

 private:
  std::string field_;
  std::string zh_;
};

// An error's sentence with every input it names spelled as its request key
// ("--seq-len must be ..." → "seq_len must be ..."), in English or Chinese:
// for front ends whose callers write request keys (Python, a C++ program
// filling request structs). Only gpuplan's own inputs are renamed;
// another program's flags the sentence quotes (Megatron's --num-layers) stay.
std::string in_request_keys(const std::string& sentence);
std::string what_in_request_keys(const InputError& e);
std::string zh_in_request_keys(const InputError& e);

}  // namespace gpuplan
