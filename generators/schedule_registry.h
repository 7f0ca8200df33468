// Where a generator finds the schedule of a variant: each schedule family binds its variants'
// names to their schedule functions once, in schedules/<family>/bindings.cc, at static
// initialisation; a generator reads its descriptor (ops/op.h) from its one generator parameter,
// builds the algorithm the choice's form names, and applies the schedule bound to the choice's
// variant. The generators include no schedule: a new family is a folder of its own.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "Halide.h"
#include "ops/op.h"

namespace cortado {

template <typename OpT>
OpT read_descriptor(const std::string &text) {
    try {
        return ops::parse_descriptor<OpT>(text);
    } catch (const std::invalid_argument &e) {
        throw Halide::CompileError(std::string(OpT::Shape::kOp) + ": " + e.what());
    }
}

// Values bound to variant names, one map per type of value: schedule functions of one algorithm
// for one op, or another per-variant hook (generators/pooling.h's MAX window form).
template <typename Value>
std::map<std::string, Value> &variant_bindings() {
    static std::map<std::string, Value> bindings;
    return bindings;
}

template <typename Algorithm, typename OpT>
using Schedule = std::function<void(Algorithm &, const OpT &, const Halide::Target &)>;

// A binding made at static initialisation; a name bound twice for the same type is a defect,
// reported when the program starts.
template <typename Value>
struct Bind {
    Bind(const std::string &variant, Value value) {
        if (!variant_bindings<Value>().emplace(variant, std::move(value)).second)
            throw std::logic_error("variant " + variant + " is bound twice");
    }
};

template <typename Algorithm, typename OpT>
using BindSchedule = Bind<Schedule<Algorithm, OpT>>;

template <typename Algorithm, typename OpT>
void apply_schedule(Algorithm &algorithm, const OpT &op, const Halide::Target &target) {
    const auto &bindings = variant_bindings<Schedule<Algorithm, OpT>>();
    const auto it = bindings.find(op.choice.variant);
    if (it == bindings.end())
        throw Halide::CompileError(std::string(OpT::Shape::kOp) + ": no schedule is bound to variant '" +
                                   op.choice.variant + "' for the form " + ops::field_value(op.choice.form));
    it->second(algorithm, op, target);
}

}  // namespace cortado
