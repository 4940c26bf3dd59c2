// gpuplan._gpuplan: the compiled half of the Python module (python/gpuplan/).
//
// run_json() runs every command with a result through the library chain the
// web API uses (src/inputs/json_inputs.cpp: the inputs' one declaration, the
// library's checks, the report), so a Python result is that command's JSON
// document, field for field; run_export() is plan --export through the
// library's launch_config. No call goes through the command-line parser.
// commands() describes every subcommand's options, from which the Python side
// builds its functions' keyword arguments: no list of inputs is written here.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/run_cli.hpp"
#include "gpuplan/error.hpp"
#include "report/report.hpp"
#include "inputs/json_inputs.hpp"

namespace py = pybind11;

namespace {

// The library chain itself for every command with a result: `request` is a
// JSON object keyed as the command's flags (the Python side builds it from the
// keyword arguments), read by the same declarations the CLI binds
// (document_from_json), returned as the JSON document `gpuplan <command>
// --format json` prints. No CLI11, no state kept between calls: a gpu_file
// applies to its own call. Returns (document, error sentence or None, the
// request key the error names or None): bad input is returned, not raised, so
// the Python side raises its own gpuplan.InputError (a ValueError).
py::tuple run_json(const std::string& command, const std::string& request) {
  std::string out;
  std::optional<std::string> error, field;
  {
    py::gil_scoped_release unlocked;
    try {
      out = gpuplan::document_from_json(command, nlohmann::json::parse(request), gpuplan::JsonCaller::kLocal).dump();
    } catch (const gpuplan::InputError& e) {
      error = gpuplan::what_in_request_keys(e);  // inputs spelled as keyword arguments: "seq_len must be ..."
      field = e.field();
    }
  }
  return py::make_tuple(out, error ? py::cast(*error) : py::none(), field ? py::cast(*field) : py::none());
}

// `gpuplan plan ... --export TO --rank N` through the library (launch_config_from_json):
// `request` is plan's JSON request with "export" and "rank". Returns (the
// configuration's text, the notes the CLI prints on stderr, error or None,
// field or None, the launch command).
py::tuple run_export(const std::string& request) {
  std::string out, launch;
  std::vector<std::string> notes;
  std::optional<std::string> error, field;
  {
    py::gil_scoped_release unlocked;
    try {
      const gpuplan::LaunchConfig lc = gpuplan::launch_config_from_json(nlohmann::json::parse(request), gpuplan::JsonCaller::kLocal);
      out = lc.text;
      launch = lc.launch;
      for (const gpuplan::Bilingual& n : lc.notes) notes.push_back(n.en);
    } catch (const gpuplan::InputError& e) {
      error = gpuplan::what_in_request_keys(e);  // inputs spelled as keyword arguments: "seq_len must be ..."
      field = e.field();
    }
  }
  return py::make_tuple(out, notes, error ? py::cast(*error) : py::none(), field ? py::cast(*field) : py::none(), launch);
}

py::list commands() {
  py::list result;
  for (const auto& c : gpuplan::cli::command_specs()) {
    py::list options;
    for (const auto& o : c.options) {
      py::dict d;
      d["name"] = o.name;
      d["positional"] = o.positional;
      d["flag"] = o.flag;
      d["repeatable"] = o.repeatable;
      d["required"] = o.required;
      d["type"] = o.type;
      d["default"] = o.default_text;
      d["help"] = o.help;
      options.append(d);
    }
    py::dict d;
    d["name"] = c.name;
    d["help"] = c.help;
    d["options"] = options;
    result.append(d);
  }
  return result;
}

// Each command's declared inputs (visit_<command>_inputs) as their canonical flags, for the test that
// every one is a keyword argument of the command's function.
py::dict declared_inputs() {
  py::dict result;
  for (const auto& d : gpuplan::cli::declared_inputs()) {
    py::list flags;
    for (const auto& input : d.inputs) {
      const std::string all = input.flags;
      flags.append(all.substr(0, all.find(',')));
    }
    result[py::str(d.command)] = flags;
  }
  return result;
}

}  // namespace

PYBIND11_MODULE(_gpuplan, m) {
  m.doc() = "gpuplan's library chain, in-process (use the gpuplan package, not this module)";
  m.def("run_json", &run_json, py::arg("command"), py::arg("request"),
        "Runs a command on a JSON request keyed as its flags; returns (JSON document, error or None, field or None).");
  m.def("run_export", &run_export, py::arg("request"),
        "Runs plan --export on a JSON request keyed as plan's flags plus export and rank; returns (text, notes, error or None, field or None).");
  m.def("commands", &commands, "Every subcommand with its options, as the CLI declares them.");
  m.def("declared_inputs", &declared_inputs, "Each command's declared inputs (C++ visit_*_inputs) as their canonical CLI flags.");
  m.attr("version") = "0.1.0";
}
