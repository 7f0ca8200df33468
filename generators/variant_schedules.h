// How a generator turns its descriptor into a scheduled pipeline: it reads the op descriptor
// (ops/op.h) from its one generator parameter, builds the algorithm, and applies the schedule
// that its table lists for the choice's variant. Which variants a family offers, and with which
// knobs, is declared in schedules/<family>/space.h; the tables here only name the code.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include "Halide.h"
#include "generators/ops/op.h"

namespace cortado {

template <typename OpT>
OpT read_descriptor(const std::string &text) {
    try {
        return ops::parse_descriptor<OpT>(text);
    } catch (const std::invalid_argument &e) {
        throw Halide::CompileError(std::string(OpT::Shape::kOp) + ": " + e.what());
    }
}

template <typename Algorithm, typename OpT>
using VariantSchedules = std::map<std::string, std::function<void(Algorithm &, const OpT &, const Halide::Target &)>>;

template <typename Algorithm, typename OpT>
void apply_variant(const VariantSchedules<Algorithm, OpT> &table, Algorithm &algorithm, const OpT &op,
                   const Halide::Target &target) {
    const auto it = table.find(op.choice.variant);
    if (it == table.end())
        throw Halide::CompileError(std::string(OpT::Shape::kOp) + ": no schedule for variant '" + op.choice.variant +
                                   "'");
    it->second(algorithm, op, target);
}

}  // namespace cortado
